import Foundation
import Testing

@testable import StoredKit

#if canImport(Glibc)
    import Glibc
#endif

/// StoreError's cases say what happened: conditions that are not SQLite errors have cases of their
/// own, `isCorruption` answers without result codes, and a backend's own error keeps its identity.
@Suite("StoreError: real cases, isCorruption, foreign errors")
struct StoreErrorCaseTests {
    struct OfflineError: Error, Equatable {}

    /// A backend that fails every commit with an error of its own type.
    final class OfflineBackend: Backend {
        let location = "offline"
        func load() throws -> BackendSnapshot { BackendSnapshot() }
        func commit(_ changes: BackendChanges) throws -> BackendSnapshot? { throw OfflineError() }
        func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
            throw OfflineError()
        }
        func startWatching(_ onChange: @escaping @Sendable () -> Void) throws {}
        func stopWatching() {}
    }

    @Test func aBackendsOwnErrorKeepsItsIdentity() throws {
        let store = try PreferenceStore(OfflineBackend())
        store.set(1, forKey: "a")

        let error = try #require(throws: StoreError.self) { try store.flush() }

        guard case .backendFailed(let location, _, let underlying) = error else {
            Issue.record("expected backendFailed, got \(error)")
            return
        }
        #expect(location == "offline")
        #expect(underlying as? OfflineError == OfflineError())
    }

    @Test func anotherProgramsDatabaseHasItsOwnCase() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("other.db")
        _ = try SQLiteBackendTests.shell(url, "CREATE TABLE invoices (id INTEGER PRIMARY KEY);")

        let error = try #require(throws: StoreError.self) { _ = try SQLiteBackend.sqlite(at: url).load() }

        guard case .notStoredKitDatabase(let path, let reason) = error else {
            Issue.record("expected notStoredKitDatabase, got \(error)")
            return
        }
        #expect(path == url.path)
        #expect(reason.contains("other tables present"))
        #expect(!error.isCorruption)
    }

    @Test func isCorruptionCoversDamagedFilesOnly() throws {
        #expect(StoreError.corruptFile(path: "p", reason: "r", quarantinedAt: nil).isCorruption)
        #expect(StoreError.sqlite(path: "p", code: 11, message: "malformed").isCorruption)
        #expect(StoreError.sqlite(path: "p", code: 26, message: "not a database").isCorruption)
        #expect(StoreError.sqlite(path: "p", code: 11 | 1 << 8, message: "extended").isCorruption)
        #expect(!StoreError.sqlite(path: "p", code: 5, message: "busy").isCorruption)
        #expect(!StoreError.io(path: "p", operation: "write", errno: ENOSPC).isCorruption)
        #expect(!StoreError.notStoredKitDatabase(path: "p", reason: "r").isCorruption)
    }

    @Test func aDamagedSQLiteFileIsCorruption() throws {
        let directory = try TemporaryDirectory()
        try Data(repeating: 0x5A, count: 4096).write(to: directory.database)

        let error = try #require(throws: StoreError.self) {
            _ = try SQLiteBackend.sqlite(at: directory.database, corruption: .fail).load()
        }

        #expect(error.isCorruption)
    }
}
