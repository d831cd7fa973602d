import Foundation
import Synchronization
import Testing

@testable import StoredKit

/// A backend's own commits never signal its own watcher: their `NOTIFY` can reach the process's
/// listener before the commit returns, and used to read as someone else's change (a reload, one
/// more round trip, after every write of a writing process).
@Suite(
    "PostgreSQL own commits",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresOwnCommitTests {
    @Test func ownCommitsDoNotSignalTheWatcherOthersDo() throws {
        let (backend, other, signals, probe) = try watchedBesideAnother("own")
        // Current before writing: a one-key write cannot know its revision before it commits,
        // so right after another's commit its own NOTIFY may signal once (a harmless reload).
        _ = try backend.load()

        for value in 1...50 { _ = try backend.commit(BackendChanges(values: ["mine": .int(Int64(value))])) }
        _ = try other.commit(BackendChanges(values: ["other": .int(1)]))
        try probe.roundTrip()
        #expect(signals.count.load(ordering: .relaxed) == 1)
        #expect(try backend.load().values == ["mine": .int(50), "other": .int(1)])
    }

    @Test func anOwnExclusiveCommitDoesNotSignalEither() throws {
        let (backend, other, signals, probe) = try watchedBesideAnother("own-exclusive")

        for _ in 1...50 {
            try backend.withExclusiveAccess { snapshot in
                guard case .int(let count)? = snapshot.values["count"] else {
                    return (BackendChanges(values: ["count": .int(1)]), ())
                }
                return (BackendChanges(values: ["count": .int(count + 1)]), ())
            }
        }
        _ = try other.commit(BackendChanges(values: ["other": .int(1)]))
        try probe.roundTrip()
        #expect(signals.count.load(ordering: .relaxed) == 1)
        #expect(try backend.load().values == ["count": .int(50), "other": .int(1)])
    }

    /// A watched backend and another on the same fresh namespace, once the listener has told the
    /// watcher whatever it had before (a first connection's "catch up"), with the count at zero.
    private func watchedBesideAnother(_ prefix: String) throws -> (
        backend: PostgresBackend, other: PostgresBackend, signals: SignalCount, probe: PostgresListenerProbe
    ) {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace(prefix)
        let backend = PostgresBackend.postgres(url: url, namespace: namespace)
        let other = PostgresBackend.postgres(url: url, namespace: namespace)
        _ = try backend.load()
        _ = try other.load()
        let signals = SignalCount()
        try backend.startWatching { signals.count.add(1, ordering: .relaxed) }
        let probe = try PostgresListenerProbe(url: url)
        _ = try other.commit(BackendChanges(values: ["other": .int(0)]))
        try probe.roundTrip()
        signals.count.store(0, ordering: .relaxed)
        return (backend, other, signals, probe)
    }

    /// How many times the watcher was called.
    private final class SignalCount: Sendable {
        let count = Atomic(0)
    }
}
