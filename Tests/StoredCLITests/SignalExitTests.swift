import Foundation
import Testing

/// SIGINT and SIGTERM end `stored` through StoredKit's exit sequence (flush, then every backend
/// shut down), with the statuses `stored help` lists, also while it is connected to a server:
/// an exit status, never death by the signal.
@Suite("stored ends on SIGINT and SIGTERM with statuses 130 and 143")
struct SignalExitTests {
    @Test func helpListsTheSignalStatuses() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let help = try cli.run("help").stdout
        #expect(help.contains("130  ended by SIGINT"), "\(help)")
        #expect(help.contains("143  ended by SIGTERM"), "\(help)")
    }

    @Test func aWatchOfAFileEndsOnSIGINTWithStatus130() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "prefs.sqlite", "n", "0", "--int")
        let watcher = try StoredWatcher(["prefs.sqlite"], cli: cli)
        watcher.waitForError("Watching")
        kill(watcher.process.processIdentifier, SIGINT)
        let (status, _) = watcher.finish()
        #expect(watcher.process.terminationReason == .exit, "ended by a signal, not through the exit sequence")
        #expect(status == 130)
    }

    @Test(.enabled(if: CLIPostgresServer.isEnabled, CLIPostgresServer.skipMessage))
    func aWatchOfAServerEndsOnSIGTERMWithStatus143() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("signal")
        try cli.run("write", url, "n", "0", "--int", "--namespace", namespace)
        let watcher = try StoredWatcher([url, "--namespace", namespace], cli: cli)
        watcher.waitForError("Watching")
        kill(watcher.process.processIdentifier, SIGTERM)
        let (status, _) = watcher.finish()
        #expect(watcher.process.terminationReason == .exit, "ended by a signal, not through the exit sequence")
        #expect(status == 143)
    }
}
