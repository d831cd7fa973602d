import Foundation
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
        let pair = try PostgresWatchedPair("own")
        let (backend, other, signals, probe) = (pair.backend, pair.other, pair.signals, pair.probe)
        // Current before writing: a one-key write cannot know its revision before it commits,
        // so right after another's commit its own NOTIFY may signal once (a harmless reload).
        _ = try backend.load()
        let epoch = pair.liveEpoch

        for value in 1...50 { _ = try backend.commit(BackendChanges(values: ["mine": .int(Int64(value))])) }
        _ = try other.commit(BackendChanges(values: ["other": .int(1)]))
        try probe.roundTrip()
        #expect(pair.expectedSignals(1, since: epoch).contains(signals.count.load(ordering: .relaxed)))
        #expect(try backend.load().values == ["mine": .int(50), "other": .int(1)])
    }

    @Test func anOwnExclusiveCommitDoesNotSignalEither() throws {
        let pair = try PostgresWatchedPair("own-exclusive")
        let (backend, other, signals, probe) = (pair.backend, pair.other, pair.signals, pair.probe)
        let epoch = pair.liveEpoch

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
        #expect(pair.expectedSignals(1, since: epoch).contains(signals.count.load(ordering: .relaxed)))
        #expect(try backend.load().values == ["count": .int(50), "other": .int(1)])
    }
}
