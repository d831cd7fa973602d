import Foundation
import Synchronization

@testable import StoredKit
@testable import StoredKitPostgres

/// The process's listener for `url`, LISTENing (a backend holds its server); ``roundTrip()``
/// commits to a namespace of its own and waits until the listener told that commit: it tells
/// in commit order, so everything committed before was told by then.
final class PostgresListenerProbe {
    private let backend: PostgresBackend
    private let listener: PostgresListener
    private let subscription: UInt64
    private let told = Told()

    init(url: String) throws {
        backend = PostgresBackend.postgres(url: url, namespace: PostgresTestServer.freshNamespace("warm"))
        _ = try backend.load()
        listener = try PostgresServer.shared(for: PostgresAddress(url)).listener
        let told = self.told
        subscription = listener.subscribe(backend.namespace) { signal in
            if case .committed(let revision) = signal { told.revision.withLock { $0 = max($0, revision) } }
        }
        try listener.waitUntilLive()
        // Written once, so the listener knows its notification token and tells it alone.
        _ = try backend.commit(BackendChanges(values: ["tick": .int(0)]))
    }

    deinit {
        listener.unsubscribe(backend.namespace, subscription)
    }

    /// Commits once and waits (at most 30 s) until the listener told it.
    func roundTrip() throws {
        _ = try backend.commit(BackendChanges(values: ["tick": .int(told.revision.withLock { $0 })]))
        let revision = backend.seenRevision.load(ordering: .relaxed)
        let deadline = ContinuousClock.now + .seconds(30)
        while told.revision.withLock({ $0 }) < revision {
            guard ContinuousClock.now < deadline else { throw NotHeard() }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    private struct NotHeard: Error {}

    /// The newest revision the listener told for the probe's namespace.
    private final class Told: Sendable {
        let revision = Mutex<Int64>(0)
    }
}
