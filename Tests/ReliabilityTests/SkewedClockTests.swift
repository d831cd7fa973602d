import Foundation
import StoredKitTestSupport
import Testing

/// A child started with ``SkewedClock``'s environment reads a wall clock shifted by the offset,
/// ahead or behind: what the tests of machines whose clocks disagree (issue 39) rely on. Skipped
/// without libfaketime (`make test` installs it), except under `CI=true`, where that fails.
@Suite(
    "A child process whose clock is a day off",
    .enabled(
        if: SkewedClock.library != nil || ProcessInfo.processInfo.environment["CI"] == "true",
        Comment(rawValue: SkewedClockUnavailable().description)))
struct SkewedClockTests {
    @Test(arguments: [1, -1])
    func theChildsDateIsShiftedByTheOffset(days: Int) async throws {
        let clock = SkewedClock.days(days)
        let before = Date().timeIntervalSince1970
        let child = try HelperProcess(["print-time"], environment: try clock.environment())
        #expect(await child.exitStatus() == 0)
        let after = Date().timeIntervalSince1970
        let printed = try #require(child.lines.first.flatMap(Double.init), "the child printed \(child.lines)")
        // The child read its clock between `before` and `after`, a day off; a minute either way
        // covers a machine whose clock is stepped meanwhile, never a wrong sign or a missing shift.
        let unshifted = printed - Double(clock.seconds)
        #expect(
            unshifted >= before - 60 && unshifted <= after + 60,
            "the child's clock is \(printed - before) s off this process's, not \(clock.seconds) s")
    }

    @Test func aSkewedChildKilledHardLeavesNothingBehind() async throws {
        let child = try HelperProcess(["write-loop", "memory"], environment: try SkewedClock.hours(-3).environment())
        #expect(await child.waitForLine { $0 == "1" }, "the skewed child got its arguments and ran")
        let leftovers = [
            "/dev/shm/faketime_shm_\(child.processIdentifier)", "/dev/shm/sem.faketime_sem_\(child.processIdentifier)",
        ]
        let made = leftovers.filter { FileManager.default.fileExists(atPath: $0) }
        await child.killHard()
        #expect(made.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "left in /dev/shm: \(made)")
    }

    @Test func theEnvironmentKeepsTheMonotonicClocksReal() throws {
        let environment = try SkewedClock.days(-1).environment()
        #expect(environment["FAKETIME"] == "-86400")
        #expect(environment["FAKETIME_DONT_FAKE_MONOTONIC"] == "1")
        #expect(environment["LD_PRELOAD"]?.hasSuffix("/faketime/libfaketime.so.1") == true)
        #expect(try SkewedClock.hours(2).environment()["FAKETIME"] == "+7200")
    }
}
