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
    .enabled(if: PostgresURLs.isEnabled, PostgresURLs.skipMessage))
struct ReplicaConvergenceTests {
    /// One write a client logged with the stamp its replica recorded for it.
    typealias Write = ReplicaConvergence.Write

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

        // The write made last, per key, of every write a client logged, on the server and every replica.
        let check = ReplicaConvergence(
            keys: (0..<16).map { "k\($0)" }, writes: clients.flatMap { $0.lines.compactMap(Write.init) },
            serverRows: try ReplicaProcess.serverRows(server.url, Self.namespace), replicas: finals)
        #expect(check.problems.isEmpty, "seed \(seed): \(check.problems.joined(separator: "\n"))")
        #expect(check.divergentKeys.isEmpty && check.keysNotHoldingLastWrite.isEmpty && check.pending == 0)
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
        if let id = client.replicaID,
            let (line, mismatch) = try ReplicaConvergence.settleKilledWrite(client.lines, replica: client.file, replicaID: id)
        {
            #expect(mismatch == nil, "\(mismatch ?? "")")
            lines.append(line)
        }
        client.earlierLines += lines
        client.run = try Self.start(
            client.relay, client.file, seed: seed &+ 1000 &+ UInt64(client.index), stop: stop, tag: "c\(client.index)r")
    }
}
