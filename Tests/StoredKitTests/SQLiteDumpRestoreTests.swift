import Foundation
import StoredKitTestSupport
import Testing

@testable import StoredKit

/// `sqlite3 prefs.sqlite .dump | sqlite3 copy.sqlite` keeps the tables but loses the header that
/// carries the schema version: such a copy is refused, unchanged, with the way to restore it.
@Suite("A store restored from a text dump")
struct SQLiteDumpRestoreTests {
    /// A store at schema version 2 with two keys, and its copy made through `.dump`.
    static func dumpedCopy(in directory: TemporaryDirectory) throws -> URL {
        let migrations = [
            Migration(version: 1, "seed") { $0.set(1, forKey: "a") },
            Migration(version: 2, "more") { $0.set("two", forKey: "b") },
        ]
        _ = try PreferenceStore(.sqlite(at: directory.database), migrations: migrations, durability: .immediate)
        let dump = try SQLiteBackendTests.shell(directory.database, ".dump")
        let copy = directory.file("copy.sqlite")
        _ = try ExternalCommand.run("/usr/bin/sqlite3", [copy.path], input: Data(dump.utf8))
        return copy
    }

    @Test func theCopyIsRefusedUnchangedWithTheWayToRestoreIt() throws {
        let directory = try TemporaryDirectory()
        let copy = try Self.dumpedCopy(in: directory)
        let before = try Data(contentsOf: copy)
        for policy in [CorruptionPolicy.quarantine, .fail] {
            #expect {
                _ = try PreferenceStore(.sqlite(at: copy, corruption: policy))
            } throws: { error in
                guard case StoreError.restoredWithoutHeader(let path) = error else { return false }
                let message = "\(error)"
                return path == copy.path && message.contains(".backup") && message.contains("user_version")
            }
        }
        #expect(try Data(contentsOf: copy) == before)
        #expect(try directory.names() == ["copy.sqlite", "prefs.sqlite"])
    }

    @Test func settingTheTwoPragmasAsAdvisedRestoresIt() throws {
        let directory = try TemporaryDirectory()
        let copy = try Self.dumpedCopy(in: directory)
        _ = try SQLiteBackendTests.shell(copy, "PRAGMA application_id = 1400130353; PRAGMA user_version = 2")
        let restored = try PreferenceStore(.sqlite(at: copy))
        #expect(restored.schemaVersion == 2)
        #expect(restored.dictionaryRepresentation() == ["a": .int(1), "b": .string("two")])
    }
}
