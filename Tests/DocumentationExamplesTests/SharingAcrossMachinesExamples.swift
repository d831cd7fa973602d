import Foundation
import StoredKit
import StoredKitPostgres
import StoredKitTestSupport
import Testing

// The examples of "Sharing preferences across machines"
// (Sources/StoredKitPostgres/StoredKitPostgres.docc/SharingPreferencesAcrossMachines.md). They need the throwaway
// PostgreSQL server `make test` starts; without STOREDKIT_POSTGRES_URL they are skipped (under
// CI=true they fail instead).

private let serverURL = ProcessInfo.processInfo.environment["STOREDKIT_POSTGRES_URL"]
private let serverExpected = serverURL != nil || ProcessInfo.processInfo.environment["CI"] == "true"

@Suite(
    "Sharing preferences across machines", .enabled(if: serverExpected, "No PostgreSQL test server: run `make test`"),
    .awaitsChanges)
struct SharingAcrossMachinesExamples {
    func url() throws -> String {
        try #require(serverURL, "CI=true but STOREDKIT_POSTGRES_URL is not set: run the tests with `make test`")
    }

    @Test func twoMachinesShareANamespace() async throws {
        let namespace = "user:42-\(UUID())"
        let laptop = try PreferenceStore(.postgres(url: try url(), namespace: namespace))
        let desktop = try PreferenceStore(.postgres(url: try url(), namespace: namespace))  // as another machine would
        var changes = desktop.changes.makeAsyncIterator()
        laptop[.volume] = 0.8
        try laptop.flush()
        let change = await changes.next()
        #expect(change?.key == "volume")
        #expect(change?.origin == .external)
        #expect(desktop[.volume] == 0.8)
    }

    @Test func namespacesAreIsolated() throws {
        let ada = try PreferenceStore(.postgres(url: try url(), namespace: "user:ada-\(UUID())"))
        let bob = try PreferenceStore(.postgres(url: try url(), namespace: "user:bob-\(UUID())"))
        ada[.volume] = 0.8
        try ada.flush()
        #expect(bob.keys.isEmpty)
    }

    @Test func updateIsAtomicAcrossStores() throws {
        let namespace = "counter-\(UUID())"
        let first = try PreferenceStore(.postgres(url: try url(), namespace: namespace))
        let second = try PreferenceStore(.postgres(url: try url(), namespace: namespace))
        for _ in 0..<5 {
            try first.update(.launchCount) { $0 += 1 }
            try second.update(.launchCount) { $0 += 1 }
        }
        let reader = try PreferenceStore(.postgres(url: try url(), namespace: namespace))
        #expect(reader[.launchCount] == 10)
    }

    @Test func thePasswordNeverAppearsInTheLocation() {
        let backend = PostgresBackend(url: "postgresql://app:secret@db/prefs", namespace: "user:42")
        #expect(backend.location == "postgresql://app@db/prefs namespace 'user:42'")
    }

    @Test func aFileStoreMovesIntoANamespaceOnce() throws {
        let directory = try TemporaryDirectory()
        let file = try PreferenceStore(.sqlite(at: directory.file("prefs.sqlite")))
        file[.volume] = 0.8
        try file.flush()
        let store = try PreferenceStore(
            .postgres(url: try url(), namespace: "user:42-\(UUID())"),
            migrations: [
                Migration(version: 1, "move to the server") { m in
                    try m.importStore(file, removeSourceKeysAfterCommit: true)
                }
            ])
        #expect(store[.volume] == 0.8)
        #expect(file.keys.isEmpty)
    }
}
