import Foundation
import Glibc
import StoredKitTestSupport
import Testing

/// `stored-demo --shared URL --replica FILE` (issue 40): the sidebar on a replica of a PostgreSQL
/// namespace, on real pseudo-terminals. Without a server it opens and works offline, saying what
/// waits to be sent.
@Suite("stored-demo --shared, offline")
struct SharedDemoOfflineTests {
    /// A server address where nothing listens: the server is down from the start.
    static func downServer() -> String { "postgresql://postgres@127.0.0.1:\(closedLocalPort())/postgres" }

    @Test func withTheServerDownTheWindowOpensWorksAndCountsWhatIsNotSynced() throws {
        let folder = try TemporaryDirectory()
        let replica = folder.file("laptop.replica")
        let demo = try DemoTerminal(arguments: [
            "--shared", Self.downServer(), "--namespace", "home", "--replica", replica.path, "--forced",
            folder.file("forced.plist").path,
        ])
        #expect(demo.waitForScreen { _ in demo.shows("▸ [x] Home") && demo.shows("offline — everything synced (never synced)") })
        #expect(demo.shows("shared 'home', replica: "))
        #expect(demo.waitForScreen { _ in demo.shows("The server is out of reach; changes wait in the replica") })

        try demo.type("jj ")  // Climate, hidden
        #expect(demo.waitForScreen { _ in demo.shows("[ ] Climate") && demo.shows("offline — 1 change not synced yet") })
        try demo.type("aAttic\r")  // a room: a second key
        #expect(demo.waitForScreen { _ in demo.shows("[x] Attic") && demo.shows("offline — 2 changes not synced yet") })
        try demo.type("q")
        #expect(demo.waitForExit() == 0)

        // The replica kept both: a second start, still offline, shows them and still counts them.
        let again = try DemoTerminal(arguments: [
            "--shared", Self.downServer(), "--namespace", "home", "--replica", replica.path, "--forced",
            folder.file("forced.plist").path,
        ])
        #expect(
            again.waitForScreen { _ in
                again.shows("[ ] Climate") && again.shows("[x] Attic") && again.shows("offline — 2 changes not synced yet")
            }, "\(again.screen.joined(separator: "\n"))")
        try again.type("q")
        #expect(again.waitForExit() == 0)
    }

    @Test func aCommandOfflineKeepsItsChangeInTheReplicaAndSaysSo() throws {
        let folder = try TemporaryDirectory()
        let replica = folder.file("laptop.replica")
        let result = try DemoProcess.run(["--shared", Self.downServer(), "--replica", replica.path, "hide", "climate"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("[ ] Climate"))
        #expect(result.error.contains("offline — 1 change not synced yet"), "\(result.error)")
        #expect(result.error.contains("laptop.replica"))
        #expect(FileManager.default.fileExists(atPath: replica.path))
    }

    @Test func sharedOptionsAreCheckedAndDocumented() throws {
        let help = try DemoProcess.run(["help"])
        #expect(help.output.contains("--shared URL"))
        #expect(help.output.contains("--replica FILE"))
        #expect(help.output.contains("--namespace NAME"))

        let cases: [([String], String)] = [
            (["--replica", "/tmp/x.replica"], "--replica needs --shared URL"),
            (["--namespace", "n"], "--namespace needs --shared URL"),
            (["--shared", Self.downServer(), "--store", "/tmp/x.sqlite"], "--store and --shared exclude each other"),
            (["--shared", ""], "--shared needs the server's URL"),
            (["--shared", Self.downServer(), "--namespace", ""], "--namespace needs a name"),
        ]
        for (arguments, message) in cases {
            let result = try DemoProcess.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.error.contains(message), "\(arguments): \(result.error)")
        }
    }
}

/// Two windows on two replicas of one namespace, each reaching a server of the test's own through
/// a relay: in step while it runs, each working offline while it is stopped, converging once it
/// is back, the change made later winning and the window whose change lost saying so.
@Suite(
    "stored-demo --shared, two windows", .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["STOREDKIT_POSTGRES_URL"] != nil,
        "No PostgreSQL test server: run `make test` (it starts one), or set STOREDKIT_POSTGRES_URL"))
struct SharedDemoWindowsTests {
    /// Rows of the sidebar that say which of these tabs are shown.
    static func checks(_ demo: DemoTerminal) -> [String] {
        ["Climate", "Lights", "Security"].map { title in
            demo.screen.first { $0.contains("] \(title)") }.map { $0.contains("[x] \(title)") ? "[x] \(title)" : "[ ] \(title)" }
                ?? "no \(title)"
        }
    }

    static func print(_ label: String, _ demo: DemoTerminal) {
        Swift.print("— \(label) —\n" + demo.screen.joined(separator: "\n"))
    }

    @Test func twoWindowsStayInStepWorkOfflineAndConvergeTheLaterChangeWinning() throws {
        let server = try ThrowawayPostgresServer(label: "storedkit-demo-pg")
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let relays = try (0..<2).map { _ in try SilentServerProxy(to: server.url) }
        defer { relays.forEach { $0.stop() } }
        let windows = try ["desk", "laptop"].enumerated().map { index, name in
            try DemoTerminal(arguments: [
                "--shared", relays[index].url, "--namespace", "demo", "--replica", folder.file("\(name).replica").path,
                "--forced", folder.file("forced.plist").path,
            ])
        }
        let (desk, laptop) = (windows[0], windows[1])
        for window in windows {
            #expect(
                window.waitForScreen { _ in window.shows("▸ [x] Home") && window.shows("online — everything synced") },
                "\(window.screen.joined(separator: "\n"))")
        }

        // In step: Climate hidden on the desk shows on the laptop, as another process's change.
        try desk.type("jj ")
        #expect(
            laptop.waitForScreen { _ in laptop.shows("[ ] Climate") && laptop.shows("From another process: Climate hidden.") },
            "\(laptop.screen.joined(separator: "\n"))")
        #expect(desk.waitForScreen { _ in desk.shows("online — everything synced") })

        // The server stops: each window keeps working and counts what it has not sent.
        try server.halt()
        try desk.type("j ")  // Lights, hidden on the desk
        #expect(
            desk.waitForScreen { _ in desk.shows("[ ] Lights") && desk.shows("offline — 1 change not synced yet") },
            "\(desk.screen.joined(separator: "\n"))")
        try laptop.type("jjjj ")  // Security, hidden on the laptop: later, and of the same key (the sidebar)
        #expect(
            laptop.waitForScreen { _ in laptop.shows("[ ] Security") && laptop.shows("offline — 1 change not synced yet") },
            "\(laptop.screen.joined(separator: "\n"))")
        #expect(Self.checks(desk) == ["[ ] Climate", "[ ] Lights", "[x] Security"])
        #expect(Self.checks(laptop) == ["[ ] Climate", "[x] Lights", "[ ] Security"])
        Self.print("desk, offline", desk)
        Self.print("laptop, offline", laptop)

        // The server is back, the laptop first (the desk's relay stays cut until the laptop has
        // sent), so the desk's earlier change arrives after the later one and loses to it.
        try relays[0].cut()
        try server.resume()
        #expect(
            laptop.waitForScreen { _ in laptop.shows("online — everything synced") }, "\(laptop.screen.joined(separator: "\n"))")
        try relays[0].heal()
        #expect(
            desk.waitForScreen { _ in
                desk.shows("Your change to the sidebar lost to a later one made elsewhere.")
                    && desk.shows("online — everything synced")
            }, "\(desk.screen.joined(separator: "\n"))")
        // Converged on the later change: the laptop's sidebar on both.
        #expect(desk.waitForScreen { _ in Self.checks(desk) == ["[ ] Climate", "[x] Lights", "[ ] Security"] })
        #expect(Self.checks(laptop) == ["[ ] Climate", "[x] Lights", "[ ] Security"])
        #expect(!laptop.shows("lost to a later one"))
        Self.print("desk, converged", desk)
        Self.print("laptop, converged", laptop)

        // In step again, the other way round.
        try laptop.type("k ")  // Lights, hidden on the laptop
        #expect(desk.waitForScreen { _ in desk.shows("[ ] Lights") && desk.shows("From another process: Lights hidden.") })

        for window in windows {
            try window.type("q")
            #expect(window.waitForExit() == 0)
        }
    }
}
