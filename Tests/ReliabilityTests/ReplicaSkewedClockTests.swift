import Foundation
import StoredKitTestSupport
import Testing

/// Replicas in processes whose clocks are a day ahead and a day behind (libfaketime): a change
/// made after seeing another wins whatever either clock says, and the server clamps the stamps of
/// the machine a day ahead to its own clock plus the allowed skew (60 s), and says so.
@Suite(
    "Replicas on clocks a day apart",
    .enabled(if: PostgresURLs.isEnabled, PostgresURLs.skipMessage),
    .enabled(
        if: SkewedClock.library != nil || ProcessInfo.processInfo.environment["CI"] == "true",
        Comment(rawValue: SkewedClockUnavailable().description)))
struct ReplicaSkewedClockTests {
    /// Runs `replica-set` (then synchronizes) in a child whose clock is `clock` off.
    static func set(
        _ server: String, _ namespace: String, _ file: URL, _ write: String, clock: SkewedClock
    ) async throws -> HelperProcess {
        let child = try HelperProcess(
            ["replica-set", server, namespace, file.path, write, "--immediate", "--sync", "30"],
            environment: try clock.environment())
        let status = await child.exitStatus(timeout: .seconds(90))
        #expect(status == 0, "\(child.lines)")
        return child
    }

    @Test func aChangeMadeAfterSeeingAnotherWinsAndTheDayAheadIsClamped() async throws {
        let (server, _) = try PostgresURLs.require()
        let folder = try TemporaryDirectory()
        let (ahead, behind, exact) = (folder.file("ahead.replica"), folder.file("behind.replica"), folder.file("exact.replica"))
        let namespace = ReplicaProcess.freshNamespace("skewed")

        let first = try await Self.set(server, namespace, ahead, "theme=ahead", clock: .days(1))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let row = try #require(try ReplicaProcess.serverRows(server, namespace)["theme"]?.first)
        #expect(row.value == "ahead")
        #expect(row.stampMs <= now + 60_000 + 5_000, "clamped to the server's clock plus the skew, not a day ahead")
        #expect(first.lines.contains("event clamped theme"), "\(first.lines)")
        // The replica took the clamped stamp: it agrees with the server on who wins next.
        let aheadDump = try #require(try await ReplicaProcess.dump(server, namespace, ahead))
        #expect(aheadDump.stamps["theme"] == row.stamp)

        // A day behind, after seeing it (the dump synchronizes first): its change is later.
        _ = try #require(try await ReplicaProcess.dump(server, namespace, behind))
        _ = try await Self.set(server, namespace, behind, "theme=behind", clock: .days(-1))
        #expect(try ReplicaProcess.serverRows(server, namespace)["theme"]?.first?.value == "behind")

        // A day ahead again, after seeing that: later still, though clamped.
        _ = try #require(try await ReplicaProcess.dump(server, namespace, ahead))
        _ = try await Self.set(server, namespace, ahead, "theme=ahead again", clock: .days(1))
        #expect(try ReplicaProcess.serverRows(server, namespace)["theme"]?.first?.value == "ahead again")

        // A correct clock, after seeing it, wins too, and every replica ends on its value.
        _ = try #require(try await ReplicaProcess.dump(server, namespace, exact))
        _ = try await Self.set(server, namespace, exact, "theme=exact", clock: SkewedClock(seconds: 0))
        for file in [ahead, behind, exact] {
            #expect(try await ReplicaProcess.dump(server, namespace, file)?.values == ["theme": "exact"])
        }
    }
}
