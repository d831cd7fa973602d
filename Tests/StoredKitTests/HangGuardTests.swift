import Foundation
import StoredKitTestSupport
import Testing

/// What keeps a hang from running out CI's clock: a child a test starts is killed past its
/// safety net, and `Scripts/with-deadline.sh` stops a command past its deadline, saying what
/// it was doing.
@Suite("Hangs end with a failure")
struct HangGuardTests {
    @Test func aChildThatNeverEndsIsKilledAtItsSafetyNet() throws {
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["1000"]
        try sleeper.run(killingAfter: .seconds(1))
        sleeper.waitUntilExit()
        #expect(sleeper.terminationReason == .uncaughtSignal)
        #expect(sleeper.terminationStatus == SIGKILL)
    }

    @Test func aCommandPastItsDeadlineIsKilledAndItsProcessesShown() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Scripts/with-deadline.sh").path
        let (status, output) = try ExternalCommand.run(
            "/bin/bash", ["-c", "\"$0\" 1 /bin/sh -c 'sleep 1000 & wait' 2>&1", script])
        #expect(status == 128 + SIGKILL, "\(output)")
        #expect(output.contains("still running after 1 s"), "\(output)")
        #expect(output.contains("sleep 1000"), "the process tree names the sleeping child: \(output)")
    }

    @Test func aCommandWithinItsDeadlineKeepsItsExitStatus() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Scripts/with-deadline.sh").path
        let (status, output) = try ExternalCommand.run("/bin/bash", [script, "60", "/bin/sh", "-c", "echo done; exit 3"])
        #expect(status == 3)
        #expect(output == "done\n")
    }
}
