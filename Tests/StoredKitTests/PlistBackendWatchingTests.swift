import Foundation
import Synchronization
import Testing

@testable import StoredKit

@Suite("PlistBackend watching")
struct PlistBackendWatchingTests {
    /// Long enough for the one-second safety-net check to run at least once.
    static let quietPeriod = Duration.milliseconds(1_500)

    @Test func reportsAnotherInstancesCommitButNotItsOwn() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let watched = PlistBackend.plist(at: url)
        let other = PlistBackend.plist(at: url)
        _ = try watched.commit(BackendChanges(values: ["a": .int(1)]))
        _ = try watched.load()
        let calls = Mutex(0)
        try watched.startWatching { calls.withLock { $0 += 1 } }
        defer { watched.stopWatching() }

        _ = try watched.commit(BackendChanges(values: ["own": .int(1)]))
        try await Task.sleep(for: Self.quietPeriod)
        #expect(calls.withLock { $0 } == 0)

        _ = try other.commit(BackendChanges(values: ["theirs": .int(2)]))
        #expect(await waitUntil { calls.withLock { $0 } > 0 })
        #expect(try watched.load().values == ["a": .int(1), "own": .int(1), "theirs": .int(2)])
    }

    @Test func stopsReportingAfterStopWatching() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let watched = PlistBackend.plist(at: url)
        let other = PlistBackend.plist(at: url)
        _ = try watched.load()
        let calls = Mutex(0)
        try watched.startWatching { calls.withLock { $0 += 1 } }
        _ = try other.commit(BackendChanges(values: ["first": .int(1)]))
        #expect(await waitUntil { calls.withLock { $0 } > 0 })
        _ = try watched.load()

        watched.stopWatching()
        let callsWhenStopped = calls.withLock { $0 }
        _ = try other.commit(BackendChanges(values: ["second": .int(2)]))
        try await Task.sleep(for: Self.quietPeriod)

        #expect(calls.withLock { $0 } == callsWhenStopped)
    }

    @Test func noticesAFileInADirectoryThatDidNotExistYet() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("later/prefs.plist")
        let watched = PlistBackend.plist(at: url)
        _ = try watched.load()
        let calls = Mutex(0)
        try watched.startWatching { calls.withLock { $0 += 1 } }
        defer { watched.stopWatching() }

        _ = try PlistBackend.plist(at: url).commit(BackendChanges(values: ["a": .int(1)]))

        #expect(await waitUntil { calls.withLock { $0 } > 0 })
        #expect(try watched.load().values == ["a": .int(1)])
    }
}
