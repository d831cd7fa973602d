import Synchronization

@testable import StoredKit
@testable import StoredKitPostgres

/// A watched backend and another on the same fresh namespace, once the listener has told the
/// watcher whatever it had before (a first connection's "catch up"), with the watcher's call
/// count at zero: where the own-commit and the notified-change tests start.
///
/// ```swift
/// let pair = try PostgresWatchedPair("own")
/// _ = try pair.other.commit(BackendChanges(values: ["a": .int(1)]))
/// try pair.probe.roundTrip()
/// pair.signals.count.load(ordering: .relaxed)  //=> 1
/// ```
final class PostgresWatchedPair {
    let backend: PostgresBackend
    let other: PostgresBackend
    /// How many times the watcher was called since the pair was ready.
    let signals = SignalCount()
    let probe: PostgresListenerProbe
    /// The process's listener for the server, which may reconnect while a test runs (a busy CI
    /// machine, another test's outage): each time it goes live it rightly signals every watcher once.
    let listener: PostgresListener

    init(_ prefix: String) throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace(prefix)
        backend = PostgresBackend.postgres(url: url, namespace: namespace)
        other = PostgresBackend.postgres(url: url, namespace: namespace)
        _ = try backend.load()
        _ = try other.load()
        let signals = signals
        try backend.startWatching { signals.count.add(1, ordering: .relaxed) }
        probe = try PostgresListenerProbe(url: url)
        listener = try PostgresServer.shared(for: PostgresAddress(url)).listener
        _ = try other.commit(BackendChanges(values: ["other": .int(0)]))
        try probe.roundTrip()
        signals.count.store(0, ordering: .relaxed)
    }

    /// How many times the listener went live (connected and LISTENed), for ``expectedSignals(_:since:)``;
    /// nil while it is reconnecting.
    var liveEpoch: UInt64? { listener.liveEpoch }

    /// The signals a test may see: `notified` (the other's commits), and, for each time the listener
    /// went live again since `epoch`, the catch-up signal it gives instead of or beside them (a
    /// listener reconnecting right now counts as one more).
    func expectedSignals(_ notified: Int, since epoch: UInt64?) -> ClosedRange<Int> {
        let reconnects: Int =
            switch (epoch, liveEpoch) {
            case (let before?, let now?): now >= before ? Int(now - before) : 1
            default: 1
            }
        return (reconnects == 0 ? notified : 1)...(notified + reconnects)
    }

    /// A count the watcher's closure can share.
    final class SignalCount: Sendable {
        let count = Atomic(0)
    }
}
