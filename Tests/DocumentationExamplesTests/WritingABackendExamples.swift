import Foundation
import StoredKit
import StoredKitConformance
import Synchronization
import Testing

// The examples of "Writing a backend" (Sources/StoredKit/StoredKit.docc/WritingABackend.md).

/// The smallest backend: one dictionary, one process, nothing to watch.
final class DictionaryBackend: Backend {
    private let data = Mutex(BackendSnapshot())
    let location = "dictionary"

    func load() throws -> BackendSnapshot { data.withLock { $0 } }

    func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        data.withLock { $0.apply(changes) }
        return nil  // nobody else writes here, so this instance's view is always current
    }

    func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        try data.withLock { snapshot in
            let (changes, result) = try body(snapshot)
            snapshot.apply(changes)
            return result
        }
    }

    func startWatching(_ onChange: @escaping @Sendable () -> Void) throws {}
    func stopWatching() {}
}

/// Where the backend under test keeps its data, and what it can do. Each check opens new
/// instances on the same data, as a second process would.
struct MemoryBackendSubject: ConformanceSubject {
    let contents = MemoryBackend()  // fresh data for every check
    var capabilities: BackendCapabilities { [.persistent, .sharedBetweenInstances, .subSecondDates] }
    func openBackend(corruption: CorruptionPolicy) throws -> any Backend {
        MemoryBackend(sharing: contents)  // a new instance on the same data
    }
}

@Suite("Writing a backend")
struct WritingABackendExamples {
    @Test func aStoreOverTheSmallestBackend() throws {
        let store = try PreferenceStore(DictionaryBackend())
        store[.volume] = 0.8
        try store.update(.launchCount) { $0 += 1 }
        try store.flush()
        #expect(try store.backend.load().values == ["volume": .double(0.8), "launchCount": .int(1)])
    }

    @Test(arguments: BackendConformance.checks)
    func memoryBackendConforms(_ check: BackendConformance.Check) async throws {
        try await check.run(on: MemoryBackendSubject())
    }
}
