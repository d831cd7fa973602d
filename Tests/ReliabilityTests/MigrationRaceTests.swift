import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

@Suite("Processes racing to migrate one store file", .serialized)
struct MigrationRaceTests {
    @Test(arguments: storeFileNames)
    func twoProcessesOpeningAtOnceRunTheMigrationOnce(fileName: String) async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file(fileName).path
        // Existing data from before the upgrade, so neither helper's first read waits on creating the file.
        let before = try PreferenceStore(fileAt: URL(fileURLWithPath: path), durability: .immediate)
        before.set("kept", forKey: "existing")
        // Both wait for "go" and then open together; the migration sleeps inside the exclusive section.
        let helpers = try (0..<2).map { _ in try HelperProcess(["migrate", path, folder.url.path]) }
        try await expectOneMigration(by: helpers, in: folder)
        let store = try PreferenceStore(fileAt: URL(fileURLWithPath: path))
        #expect(store.schemaVersion == 1)
        #expect(store.value(forKey: "migrated", as: String.self) == "done")
        #expect(store.value(forKey: "existing", as: String.self) == "kept")
    }
}

/// Lets the `migrate` helpers, each waiting for a `go` file in `folder`, open the store at once,
/// and expects every one to end at schema version 1 with the migration run exactly once (each
/// run appends a line to `folder/marker`). The file and PostgreSQL races share it.
func expectOneMigration(
    by helpers: [HelperProcess], in folder: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    for helper in helpers {
        #expect(await helper.waitForLine { $0 == "ready" }, sourceLocation: sourceLocation)
    }
    try Data().write(to: folder.file("go"))
    for helper in helpers {
        #expect(await helper.exitStatus() == 0, sourceLocation: sourceLocation)
        #expect(helper.lines == ["ready", "schemaVersion=1"], sourceLocation: sourceLocation)
    }
    let marker = try String(contentsOf: folder.file("marker"), encoding: .utf8)
    #expect(marker.split(separator: "\n").count == 1, sourceLocation: sourceLocation)
}
