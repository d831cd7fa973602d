import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// How a fleet moves from per-machine files to the shared server: a migration imports the old
/// store into the namespace, once, and empties the file.
@Suite(
    "Stores are imported into a PostgreSQL namespace",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresImportTests {
    @Test(arguments: ["old.sqlite", "old.plist"])
    func aMigrationImportsAFileStoreAndEmptiesIt(fileName: String) throws {
        let directory = try TemporaryDirectory()
        let oldFile = directory.file(fileName)
        let source: any Backend = fileName.hasSuffix(".sqlite") ? SQLiteBackend(at: oldFile) : PlistBackend(at: oldFile)
        _ = try source.commit(BackendChanges(values: ["volume": .double(0.8), "tabs": .array([.string("home")])]))
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("import")
        let migrations = [
            Migration(version: 1, "move to the server") { m in
                try m.importStore(
                    fileName.hasSuffix(".sqlite") ? SQLiteBackend(at: oldFile) : PlistBackend(at: oldFile),
                    removeSourceKeysAfterCommit: true)
            }
        ]
        let store = try PreferenceStore(.postgres(url: url, namespace: namespace), migrations: migrations)
        #expect(store.schemaVersion == 1)
        #expect(store.dictionaryRepresentation() == ["volume": .double(0.8), "tabs": .array([.string("home")])])
        let again = try PreferenceStore(.postgres(url: url, namespace: namespace), migrations: migrations)
        #expect(again.dictionaryRepresentation().count == 2)
        #expect(try source.load().values.isEmpty)
    }
}
