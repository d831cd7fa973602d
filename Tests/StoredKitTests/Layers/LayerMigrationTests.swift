import Foundation
import Testing

@testable import StoredKit

/// Migrations read and write the user's values only: a forced or argument value of the same key
/// neither feeds them nor blocks them.
@Suite("Migrations beside layers")
struct LayerMigrationTests {
    @Test func migrationsSeeTheUsersLayerOnly() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("user.sqlite")
        do {
            let store = try PreferenceStore(.sqlite(at: file))
            store.set(0.9, forKey: "oldVolume")
            try store.flush()
        }
        let seen = Recorder<StoredValue?>()
        let store = try PreferenceStore(
            .sqlite(at: file),
            layers: [
                .forced(.memory(["volume": .double(0.1), "oldVolume": .double(0.0)])),
                .arguments(["app", "-fresh", "argument"]),
            ],
            migrations: [
                Migration(version: 1, "rename volume") { m in
                    seen.append(m.storedValue(forKey: "fresh"))
                    seen.append(m.storedValue(forKey: "oldVolume"))
                    try m.renameKey("oldVolume", to: "volume")
                }
            ])
        #expect(seen.values == [nil, .double(0.9)])
        #expect(store.userValue(forKey: "volume", as: Double.self) == 0.9)
        #expect(store.value(forKey: "volume", as: Double.self) == 0.1)
        #expect(store.schemaVersion == 1)
    }
}
