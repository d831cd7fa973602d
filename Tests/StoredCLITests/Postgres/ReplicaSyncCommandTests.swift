import Foundation
import StoredKitTestSupport
import Testing

/// `stored sync` of offline replicas that real processes wrote, against the test server: down
/// (nobody listens on the port) and then up, a write the server refuses, a replica whose outbox
/// holds garbage, and a replica a running process holds open meanwhile.
@Suite("stored sync of an offline replica", .enabled(if: CLIPostgresServer.isEnabled, CLIPostgresServer.skipMessage))
struct ReplicaSyncCommandTests {
    /// The value of `key` in `namespace` as the server holds it (nil: no row).
    static func serverValue(_ url: String, _ namespace: String, _ key: String) throws -> String? {
        let value = try CLIPostgresServer.psql(
            url,
            "SELECT coalesce(string_value, int_value::text, double_value::text, type) FROM storedkit.preferences "
                + "WHERE namespace = '\(namespace)' AND key = '\(key)'")
        return value.isEmpty ? nil : value
    }

    @Test func aSyncWithTheServerDownLosesNothingAndOnceItIsUpSendsReceivesAndReportsWhatLost() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("sync")
        let file = cli.path("prefs.replica")
        // An earlier sync made the replica (it mirrors the namespace), then it went offline.
        try ReplicaFixture.offlineWrites(["theme=dark", "--sync", "20"], file: file, url: url, namespace: namespace)
        try ReplicaFixture.offlineWrites(["volume=0.9", "color=red", "--remove", "theme"], file: file, namespace: namespace)
        // Meanwhile, elsewhere: a later change of color, and a key of its own.
        #expect(try cli.run("write", url, "--namespace", namespace, "color", "blue").status == 0)
        #expect(try cli.run("write", url, "--namespace", namespace, "launches", "3", "--int").status == 0)

        let down = try cli.run("sync", ReplicaFixture.down, "--replica", "prefs.replica", "--timeout", "1")

        #expect(down.status == 6, "\(down)")
        #expect(down.errorOutput.contains("nothing was lost"), "\(down)")
        #expect(down.stdout.contains("3 writes wait in the replica"), "\(down)")
        #expect(try ReplicaFixture.json(try cli.run("info", "prefs.replica", "--json"))["pendingWrites"] as? Int == 3)
        #expect(try Self.serverValue(url, namespace, "volume") == nil)

        let up = try cli.run("sync", url, "--replica", "prefs.replica")  // the namespace the replica mirrors

        #expect(up.status == 0, "\(up)")
        #expect(up.lines.contains("sent volume: \"0.9\""), "\(up)")
        #expect(up.lines.contains("sent theme: (removed)"), "\(up)")
        #expect(up.lines.contains("lost color: \"red\" (a change made later elsewhere holds \"blue\")"), "\(up)")
        #expect(up.lines.contains("received launches: 3"), "\(up)")
        #expect(up.lines.last?.contains("2 sent, 1 lost to later writes, 0 refused, 1 received; nothing waits.") == true, "\(up)")
        #expect(try Self.serverValue(url, namespace, "volume") == "0.9")
        #expect(try Self.serverValue(url, namespace, "theme") == nil)
        #expect(try Self.serverValue(url, namespace, "color") == "blue")
        #expect(try cli.run("read", "prefs.replica", "color").stdout == "\"blue\"\n")
        let info = try ReplicaFixture.json(try cli.run("info", "prefs.replica", "--json"))
        #expect(info["pendingWrites"] as? Int == 0 && info["namespace"] as? String == namespace, "\(info)")
        #expect(info["lastSynced"] is String && (info["server"] as? String).map { url.hasPrefix($0) } == true, "\(info)")
        // Nothing left to send: a second sync sends nothing, and says so.
        let again = try cli.run("sync", url, "--namespace", namespace, "--replica", "prefs.replica")
        #expect(again.status == 0 && again.lines == [again.lines.last ?? ""], "\(again)")
        #expect(again.stdout.contains("0 sent"), "\(again)")
    }

    /// A replica that never reached the server reads it before it sends: a write beaten by a
    /// later one made elsewhere leaves the outbox unsent, and is reported lost all the same.
    @Test func aWriteBeatenBeforeItIsSentIsReportedLost() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("unsent")
        try ReplicaFixture.offlineWrites(["color=red", "volume=0.9"], file: cli.path("prefs.replica"), namespace: namespace)
        #expect(try cli.run("write", url, "--namespace", namespace, "color", "blue").status == 0)

        let sync = try cli.run("sync", url, "--namespace", namespace, "--replica", "prefs.replica")

        #expect(sync.status == 0, "\(sync)")
        #expect(sync.lines.contains("lost color (not sent: a change made later elsewhere holds \"blue\")"), "\(sync)")
        #expect(sync.lines.contains("sent volume: \"0.9\""), "\(sync)")
        #expect(sync.lines.last?.contains("1 sent, 1 lost to later writes, 0 refused, 0 received") == true, "\(sync)")
        #expect(try Self.serverValue(url, namespace, "color") == "blue")
    }

    @Test func aWriteTheServerRefusesIsListedWithItsReasonAndStatus8AndTheRestIsSent() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let base = try CLIPostgresServer.requireURL()
        // A database of its own: the administrator's check below must not lock the shared tables.
        let database = "cli_refusal_\(UUID().uuidString.prefix(8).lowercased())"
        try CLIPostgresServer.psql(base, "CREATE DATABASE \(database)")
        defer { CLIPostgresServer.dropDatabase(database) }
        let url = try #require(base.range(of: "/", options: .backwards).map { String(base[..<$0.upperBound]) + database })
        #expect(try cli.run("write", url, "--namespace", "team", "forbidden", "the server's").status == 0)
        try ReplicaFixture.offlineWrites(["forbidden=mine", "allowed=1"], file: cli.path("prefs.replica"), namespace: "team")
        try CLIPostgresServer.psql(
            url,
            "ALTER TABLE storedkit.preferences ADD CONSTRAINT no_mine CHECK (key <> 'forbidden' OR string_value = 'the server''s')"
        )

        let sync = try cli.run("sync", url, "--namespace", "team", "--replica", "prefs.replica")

        #expect(sync.status == 8, "\(sync)")
        #expect(sync.lines.contains("sent allowed: \"1\""), "\(sync)")
        #expect(sync.lines.contains { $0.hasPrefix("refused forbidden: \"mine\" (") && $0.contains("no_mine") }, "\(sync)")
        #expect(sync.errorOutput.contains("refused the write of 'forbidden'"), "\(sync)")
        #expect(try Self.serverValue(url, "team", "allowed") == "1")
        #expect(try Self.serverValue(url, "team", "forbidden") == "the server's")
        #expect(try cli.run("read", "prefs.replica", "forbidden").stdout == "\"the server's\"\n")
        #expect(try ReplicaFixture.json(try cli.run("info", "prefs.replica", "--json"))["pendingWrites"] as? Int == 0)
    }

    @Test func aReplicaWhoseOutboxHoldsGarbageSendsNothing() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("garbage")
        let file = cli.path("prefs.replica")
        try ReplicaFixture.offlineWrites(["volume=0.9", "theme=dark"], file: file, namespace: namespace)
        try ReplicaFixture.loosenStamps(file, "UPDATE replica_stamps SET queued_at = 'soon' WHERE key = 'theme'")

        let sync = try cli.run("sync", url, "--namespace", namespace, "--replica", "prefs.replica")

        #expect(sync.status == 4, "\(sync)")
        #expect(sync.errorOutput.contains("'\(file)'") && sync.errorOutput.contains("key 'theme'"), "\(sync)")
        #expect(sync.errorOutput.contains("Nothing was sent"), "\(sync)")
        #expect(
            try CLIPostgresServer.psql(url, "SELECT count(*) FROM storedkit.namespaces WHERE namespace = '\(namespace)'") == "0")
    }

    /// A process holds the replica open and writes all along while `stored sync` runs three times:
    /// both send the same outbox. Afterwards the server holds each key's last write, nothing waits,
    /// and no write was lost on the way.
    @Test func aSyncWhileAProcessHasTheReplicaOpenGoesThroughTheSameOutbox() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("shared-outbox")
        let file = cli.path("prefs.replica")
        let stop = cli.path("stop")
        // The app, online, writing k0...k15 until told to stop: its syncer and each `stored sync`
        // send the same outbox, each write possibly twice.
        let app = Process()
        app.executableURL = try BuiltExecutable.url(named: "stored-test-helper")
        app.arguments = ["replica-random", url, namespace, file, "40", stop, "app"]
        let log = cli.scratch.appending(path: "app.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        app.standardOutput = try FileHandle(forWritingTo: log)
        try app.run(killingAfter: .seconds(120))
        // Some writes first, then the syncs among the others.
        while (try? String(contentsOf: log, encoding: .utf8))?.filter({ $0 == "\n" }).count ?? 0 < 20 { usleep(20_000) }
        for _ in 0..<3 {
            let sync = try cli.run("sync", url, "--namespace", namespace, "--replica", "prefs.replica", "--timeout", "20")
            #expect(sync.status == 0, "\(sync)")
        }
        _ = FileManager.default.createFile(atPath: stop, contents: nil)
        app.waitUntilExit()
        #expect(app.terminationStatus == 0)
        let final = try cli.run("sync", url, "--namespace", namespace, "--replica", "prefs.replica")
        #expect(final.status == 0, "\(final)")

        // Each key's last write, as the app printed them ("w KEY VALUE", "-" for a removal).
        var last: [String: String] = [:]
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        for line in lines where line.hasPrefix("w ") {
            let fields = line.split(separator: " ")
            last[String(fields[1])] = String(fields[2])
        }
        #expect(!lines.contains { $0.hasPrefix("l ") }, "no write lost: only this app writes")
        #expect(lines.last == "done" && last.count > 3, "\(lines.suffix(3))")
        for (key, value) in last {
            #expect(try Self.serverValue(url, namespace, key) == (value == "-" ? nil : value), "\(key)")
        }
        #expect(try ReplicaFixture.json(try cli.run("info", "prefs.replica", "--json"))["pendingWrites"] as? Int == 0)
    }
}
