import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

/// Issue 39, "convergence": three processes, each with its own replica and its own relay to a
/// server of the test's own, make random sets and removes over 16 keys while the test cuts and
/// heals their relays at random, crashes the server twice and kills one client with SIGKILL
/// (restarted on the same replica). At the end, every relay healed and each client synchronized,
/// every replica and the server hold the same values, and each key holds the write made last:
/// the highest (stamp, replica id) among every write the clients logged, a removal's meaning the
/// key is absent.
///
/// The seed is printed; `STORED_CONVERGENCE_SEED` replays one (the chaos, and each client's
/// writes; not how they interleave), `STORED_CONVERGENCE_STEPS` (60 by default, about 5 s of
/// writing) makes the run longer.
@Suite(
    "Replicas converge under cuts, server crashes and kill -9", .serialized,
    .enabled(
        if: PostgresURLs.isEnabled,
        "No PostgreSQL test server: run `make test` (it starts one), or set STOREDKIT_POSTGRES_URL and STOREDKIT_POSTGRES_SOCKET_URL"
    ))
struct ReplicaConvergenceTests {
    /// One write a client logged with the stamp its replica recorded for it.
    struct Write: CustomStringConvertible {
        var key: String
        var value: String?
        var ms: Int64
        var counter: Int64
        var replica: String

        /// "s KEY VALUE MS COUNTER REPLICA", as `replica-random` prints it.
        init?(_ line: String) {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 6, fields[0] == "s", let ms = Int64(fields[3]), let counter = Int64(fields[4]) else {
                return nil
            }
            (key, value, self.ms, self.counter, replica) = (fields[1], fields[2] == "-" ? nil : fields[2], ms, counter, fields[5])
        }

        var stamp: String { "\(ms) \(counter) \(replica)" }
        var description: String { "\(key)=\(value ?? "(removed)") @\(stamp)" }
        /// The order of the merge: stamp, then replica id (byte order, as the server's COLLATE "C").
        func beats(_ other: Write) -> Bool {
            if (ms, counter) != (other.ms, other.counter) { return (ms, counter) > (other.ms, other.counter) }
            return Array(other.replica.utf8).lexicographicallyPrecedes(Array(replica.utf8))
        }
    }

    /// A client: its relay, its replica, the run in progress and the lines of its earlier runs.
    final class Client {
        let index: Int
        let relay: SilentServerProxy
        let file: URL
        var run: HelperProcess
        var earlierLines: [String] = []
        var isCut = false

        init(index: Int, relay: SilentServerProxy, file: URL, run: HelperProcess) {
            (self.index, self.relay, self.file, self.run) = (index, relay, file, run)
        }

        var lines: [String] { earlierLines + run.lines }
        var writesMade: Int { lines.filter { $0.hasPrefix("w ") }.count }
        var replicaID: String? { lines.first { $0.hasPrefix("replica ") }.map { String($0.dropFirst(8)) } }
    }

    static let namespace = "converge"

    @Test func threeReplicasEndIdenticalEachKeyHoldingTheWriteMadeLast() async throws {
        _ = try PostgresURLs.require()
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["STORED_CONVERGENCE_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        let steps = environment["STORED_CONVERGENCE_STEPS"].flatMap(Int.init) ?? 60
        print("replica convergence: seed \(seed), \(steps) steps (STORED_CONVERGENCE_SEED=\(seed) replays it)")
        var random = SeededGenerator(seed: seed)

        let server = try ThrowawayPostgresServer(label: "storedkit-pg")
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let stop = folder.file("stop")
        let relays = try (0..<3).map { _ in try SilentServerProxy(to: server.url) }
        defer { relays.forEach { $0.stop() } }
        let clients = try (0..<3).map { index in
            let file = folder.file("client\(index).replica")
            return Client(
                index: index, relay: relays[index], file: file,
                run: try Self.start(relays[index], file, seed: seed &+ UInt64(index), stop: stop, tag: "c\(index)"))
        }

        // The chaos, while the clients write: a step every few tens of milliseconds, which cuts or
        // heals a relay half of the time; the server crashes at two steps, a client is killed at one.
        let crashes = [steps / 4, steps * 3 / 5]
        let killed = steps * 2 / 5
        var cuts = 0
        for step in 0..<steps {
            if let exited = clients.first(where: { !$0.run.isRunning }) {
                Issue.record("client \(exited.index) ended before it was told to (seed \(seed)): \(exited.lines.suffix(5))")
                break
            }
            if crashes.contains(step) { try server.crashAndRestart() }
            if step == killed {
                try await kill(clients[Int.random(in: 0..<3, using: &random)], seed: seed, stop: stop)
            }
            if Bool.random(using: &random) {
                let client = clients[Int.random(in: 0..<3, using: &random)]
                if client.isCut { try client.relay.heal() } else { try client.relay.cut() }
                cuts += client.isCut ? 0 : 1
                client.isCut.toggle()
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...150, using: &random)))
        }
        _ = FileManager.default.createFile(atPath: stop.path, contents: nil)
        for client in clients {
            #expect(await client.run.exitStatus(timeout: .seconds(60)) == 0, "client \(client.index): \(client.lines.suffix(5))")
            if client.isCut { try client.relay.heal() }
        }
        print(
            "replica convergence: writes \(clients.map(\.writesMade)), \(cuts) cuts; writes that lost at once "
                + "(a newer one merged first): \(clients.map { $0.lines.filter { $0.hasPrefix("l ") }.count })")

        // Every client synchronizes, twice round: the first round sends, the second reads everyone's.
        var dumps: [ReplicaProcess.Dump?] = [nil, nil, nil]
        for _ in 0..<2 {
            for client in clients {
                dumps[client.index] = try await ReplicaProcess.dump(client.relay.url, Self.namespace, client.file)
            }
        }
        let finals = dumps.compactMap { $0 }
        try #require(finals.count == 3, "seed \(seed)")

        // The write made last, per key, of every write a client logged.
        var latest: [String: Write] = [:]
        for write in clients.flatMap({ $0.lines.compactMap(Write.init) }) where latest[write.key].map(write.beats) ?? true {
            latest[write.key] = write
        }
        let expected = latest.compactMapValues(\.value)
        let rows = try ReplicaProcess.serverRows(server.url, Self.namespace)
        let onServer = rows.compactMapValues { $0.first?.value }
        for key in (0..<16).map({ "k\($0)" }) {
            #expect(
                onServer[key] == expected[key],
                "seed \(seed): \(key) holds \(rows[key] ?? []) on the server, the write made last was \(latest[key].map(String.init(describing:)) ?? "none")"
            )
            if let winner = latest[key], let row = rows[key]?.first {
                #expect(row.stamp == winner.stamp, "seed \(seed): \(key) on the server \(row), made last \(winner)")
            }
        }
        for (index, dump) in finals.enumerated() {
            #expect(dump.pending == 0, "seed \(seed): client \(index) still has \(dump.pending) pending")
            #expect(dump.values == onServer, "seed \(seed): client \(index) holds \(dump.values), the server \(onServer)")
            #expect(
                dump.stamps == onServer.keys.reduce(into: [:]) { $0[$1] = rows[$1]?.first?.stamp },
                "seed \(seed): client \(index)'s stamps differ from the server's")
        }
    }

    static func start(_ relay: SilentServerProxy, _ file: URL, seed: UInt64, stop: URL, tag: String) throws -> HelperProcess {
        try HelperProcess(["replica-random", relay.url, namespace, file.path, String(seed), stop.path, tag])
    }

    /// Kills the client with SIGKILL, settles the write it may have been in the middle of (it
    /// counts when the replica holds it, under the client's id and a stamp it never logged), and
    /// starts it again on the same replica.
    func kill(_ client: Client, seed: UInt64, stop: URL) async throws {
        await client.run.killHard()
        var lines = client.run.lines
        if let last = lines.last, last.hasPrefix("w "), let id = client.replicaID {
            let fields = last.split(separator: " ").map(String.init)
            let (key, value) = (fields[1], fields[2] == "-" ? nil : fields[2])
            let probe = ReplicaFile(at: client.file, corruption: .fail)
            let logged = Set(client.lines.compactMap(Write.init).map(\.stamp))
            let held = try probe.stamp(of: key)
            if let held, held.replicaID == id,
                !logged.contains("\(held.stamp.milliseconds) \(held.stamp.counter) \(id)")
            {
                let stored = try probe.sqlite.load().values[key]
                #expect(stored == value.map { .string($0) }, "the killed client's last write of \(key) is not what it wrote")
                lines.append("s \(key) \(value ?? "-") \(held.stamp.milliseconds) \(held.stamp.counter) \(id)")
            } else {
                lines.append("l \(key) \(value ?? "-")")  // never made, or lost already: not the last of the key
            }
        }
        client.earlierLines += lines
        client.run = try Self.start(
            client.relay, client.file, seed: seed &+ 1000 &+ UInt64(client.index), stop: stop, tag: "c\(client.index)r")
    }
}
