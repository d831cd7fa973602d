import Foundation
import StoredKitTestSupport
import Testing

/// The PostgreSQL scenarios of `stored-torture` at small counts, against the test server
/// (`server-restart` starts a throwaway one of its own). RELIABILITY.md has the full-size runs.
@Suite(
    "stored-torture on PostgreSQL at small counts", .serialized,
    .enabled(if: PostgresURLs.isEnabled, PostgresURLs.skipMessage))
struct PostgresTortureTests {
    @Test func killedClientsLoseNoAcknowledgedWrite() throws {
        let (url, _) = try PostgresURLs.require()
        let run = try TortureRun(["kill", "6", "--backend", "postgres", "--postgres", url])
        #expect(run.lines.map { $0.prefix { $0 != ":" } } == ["kill-9 postgres deferred", "kill-9 postgres immediate"])
        run.expectClean()
    }

    @Test func contendingClientsLoseNoUpdate() throws {
        let (url, _) = try PostgresURLs.require()
        let run = try TortureRun(["contention", "40", "--processes", "4", "--backend", "postgres", "--postgres", url])
        #expect(run.lines.count == 1)
        #expect(run.lines.first?.contains("160 of 160 present") == true, "\(run.lines)")
        run.expectClean()
    }

    /// Processes that exit (or get SIGTERM) at random moments of a store's life, over TCP, TLS, to
    /// a stopped and to a silent server, all end with their own status within 10 s, never by a signal.
    @Test func processesExitingAtRandomMomentsAllExitCleanly() throws {
        let (url, _) = try PostgresURLs.require()
        let run = try TortureRun(["exit", "40", "--postgres", url])
        let line = try #require(run.lines.first { $0.hasPrefix("exit:") }, "\(run.lines)")
        #expect(line.contains("40 processes, 0 failed"), "\(line)")
        run.expectClean()
    }

    @Test func aRestartedServerLosesNothingAndEveryClientComesBack() throws {
        _ = try PostgresURLs.require()
        let run = try TortureRun(["server-restart", "2"])
        let line = try #require(run.lines.first { $0.hasPrefix("server-restart postgres") })
        #expect(line.contains("2 restarts under 2 writers and 2 observers"))
        for figure in [
            "0 final values missed", "0 changes seen out of order", "0 clients not back", "0 restarts with a client back",
        ] {
            #expect(line.contains(figure), "\(line)")
        }
        run.expectClean()
    }

    /// Issue 39, test 12 at a small count: three replicas writing for 4 s under cuts, silences, a
    /// server crash and a kill -9 end identical to the server, each key holding the write made last.
    @Test func replicasSoakedInFaultsConvergeOnTheLastWrites() throws {
        _ = try PostgresURLs.require()
        let run = try TortureRun(["replica-soak", "4", "--rate", "40", "--processes", "3"])
        let line = try #require(run.lines.first { $0.hasPrefix("replica-soak postgres") }, "\(run.lines)")
        #expect(line.contains("4 s, 3 processes"), "\(line)")
        #expect(line.contains("1 server restarts") && line.contains("1 kills"), "\(line)")
        #expect(line.contains("converged"), "\(line)")
        for figure in ["0 divergent keys", "0 keys not holding the last write", "0 writes still pending", "0 child failures"] {
            #expect(line.contains(figure), "\(line)")
        }
        let writes = try #require(line.firstMatch(of: /(\d+) writes \(/).flatMap { Int($0.output.1) }, "\(line)")
        #expect(writes > 0, "\(line)")
        run.expectClean()
    }
}

/// Regression: the throwaway server `stored-torture kill --backend postgres` started when none
/// was given kept running after the tool exited.
@Suite("stored-torture's throwaway PostgreSQL server", .enabled(if: PostgresURLs.isEnabled, "needs a PostgreSQL installation"))
struct TortureThrowawayServerTests {
    @Test func theServerItStartedIsStoppedWhenItExits() throws {
        let process = Process()
        process.executableURL = try TortureRun.executable()
        process.arguments = ["kill", "1", "--backend", "postgres", "--durability", "deferred"]
        var environment = ProcessInfo.processInfo.environment
        environment["STOREDKIT_POSTGRES_URL"] = nil
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run(killingAfter: Process.safetyNet)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(said)")
        let url = try #require(said.firstMatch(of: /server at (postgresql:\/\/\S+)/)?.output.1, "\(said)")
        // Nothing accepts connections there any more.
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        probe.arguments = ["-X", "-q", "-d", String(url), "-c", "SELECT 1"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        try probe.run(killingAfter: Process.safetyNet)
        probe.waitUntilExit()
        #expect(probe.terminationStatus != 0, "the server at \(url) still runs")
    }

    /// Regression: a scenario's own server (`replica-soak`, `server-restart`) kept running after
    /// SIGTERM ended the tool, and its scratch directory stayed: `exit` releases no local, so
    /// nothing stopped or removed them.
    @Test func theServerOfAScenarioIsStoppedWhenSIGTERMEndsIt() throws {
        let process = Process()
        process.executableURL = try TortureRun.executable()
        process.arguments = ["replica-soak", "60"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run(killingAfter: Process.safetyNet)
        var said = ""
        while !said.contains("files are in") {
            let data = errors.fileHandleForReading.availableData
            if data.isEmpty { break }  // it ended: the expectations below say how
            said += String(decoding: data, as: UTF8.self)
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 143, "\(said)")
        let url = try #require(said.firstMatch(of: /server at (postgresql:\/\/\S+)/)?.output.1, "\(said)")
        let probe = try ExternalCommand.run("/usr/bin/psql", ["-X", "-q", "-d", String(url), "-c", "SELECT 1"])
        #expect(probe.status != 0, "the server at \(url) still runs")
        // Nor its scratch directory (the replica files).
        let files = try #require(said.firstMatch(of: /files are in (\S+)/)?.output.1, "\(said)")
        #expect(!FileManager.default.fileExists(atPath: String(files)), "\(files) is still there")
    }
}
