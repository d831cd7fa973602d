import Foundation
import StoredKit
import StoredKitPostgres
import StoredKitTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 39's soak: P child processes, each a replicated store
/// (`PreferenceStore(.postgres(url:namespace:replica:))`) on its own replica file and its own
/// relay to a server of the scenario's own, make random sets and removes over 16 keys at `rate`
/// writes/s in all, each logged with the stamp its replica recorded. Meanwhile the parent cuts
/// and heals relays at random, silences one for a moment now and then, crash-restarts the server
/// (`pg_ctl restart -m immediate`) and kills a child with SIGKILL, restarting it on the same
/// replica. At the end every relay is healed and each child synchronizes (rounds, all children at
/// once, until they agree); then every replica and the server must hold the same values and
/// stamps with nothing pending, and each key the write made last (``ReplicaConvergence``).
///
/// ```sh
/// stored-torture replica-soak 300 --rate 50   # "replica-soak postgres: 300 s, 3 processes, 15000 writes (50.0/s), …"
/// ```
enum ReplicaSoakScenario {
    static let keys = (0..<16).map { "k\($0)" }
    /// How long a child, or a round of synchronizing, may take before the run counts it as stuck.
    static let patience: Duration = .seconds(90)
    /// Rounds of synchronizing after the final heal before the replicas count as divergent: the
    /// first sends every outbox, the second reads everyone's; more only if something is wrong.
    static let rounds = 4

    /// One child: its relay, its replica file, the process writing on it and the lines of the ones before (killed).
    final class Client {
        let index: Int
        let relay: SilentServerProxy
        let file: URL
        var child: ChildProcess
        var earlierLines: [String] = []
        var isCut = false
        var speakAt: ContinuousClock.Instant?

        init(index: Int, relay: SilentServerProxy, file: URL, child: ChildProcess) {
            (self.index, self.relay, self.file, self.child) = (index, relay, file, child)
        }

        var lines: [String] { earlierLines + child.lines }
        var replicaID: String? { lines.last { $0.hasPrefix("replica ") }.map { String($0.dropFirst(8)) } }
    }

    static func run(seconds length: Int, rate: Int, processes: Int, seed: UInt64) throws -> Bool {
        guard length >= 1, rate >= 1, processes >= 1 else {
            throw TortureError("replica-soak SECONDS --rate N --processes P: each at least 1")
        }
        var random = SeededGenerator(seed: seed)
        let server = try TortureServer(url: nil)  // crashed: always a server of its own
        let scratch = try ScratchDirectory("soak")
        complain("replica-soak: the replica files are in \(scratch.path)")
        let namespace = "soak-\(UUID().uuidString.prefix(8).lowercased())"
        let relays = try (0..<processes).map { _ in try SilentServerProxy(to: server.url) }
        defer { relays.forEach { $0.stop() } }
        // Each child writes at its share of the rate: one write every `interval` on average.
        let interval = 1_000_000 * processes / rate  // microseconds
        func start(_ index: Int, _ run: Int) throws -> ChildProcess {
            try ChildProcess([
                "replica-soak-writer", relays[index].url, namespace, scratch.file("client\(index).replica"),
                String(seed &+ UInt64(run * 1000 + index)), String(interval), scratch.path, "c\(index)r\(run)",
            ])
        }
        let clients = try (0..<processes).map { index in
            Client(
                index: index, relay: relays[index], file: URL(fileURLWithPath: scratch.file("client\(index).replica")),
                child: try start(index, 0))
        }
        // Whatever happens, the children end with the run: told to, or killed by ChildProcess's deinit.
        defer { _ = FileManager.default.createFile(atPath: scratch.file("exit"), contents: nil) }

        // The chaos: crashes and kills at random moments of the middle 70 % of the run, one
        // silence at least; between them a step every 100–600 ms that cuts or heals a relay half of
        // the time and silences one for 0.3–2 s one time in eight.
        let began = ContinuousClock.now
        let end = began + .seconds(length)
        func moments(_ count: Int) -> [ContinuousClock.Instant] {
            (0..<count).map { _ in began + .milliseconds(Int.random(in: length * 150...length * 850, using: &random)) }.sorted()
        }
        var crashes = moments(1 + length / 60)
        var kills = moments(1 + length / 30)
        var silences = moments(1)
        var (cuts, silenced, restarts, killed, ended) = (0, 0, 0, 0, 0)
        var problems: [String] = []
        func silence(_ client: Client) throws {
            guard client.speakAt == nil else { return }
            try client.relay.silence()
            client.speakAt = .now + .milliseconds(Int.random(in: 300...2000, using: &random))
            silenced += 1
        }
        var next = began
        while ContinuousClock.now < end || !(crashes + kills + silences).isEmpty {
            next = min(end, next + .milliseconds(Int.random(in: 100...600, using: &random)))
            pump(clients, until: next)
            for client in clients where client.speakAt.map({ $0 <= .now }) == true {
                try client.relay.speak()
                client.speakAt = nil
            }
            for client in clients where client.child.outputEnded {
                ended += 1
                problems.append("client \(client.index) ended on its own: \(client.child.lines.suffix(3))")
                client.earlierLines += client.child.lines
                client.child = try start(client.index, 100 + ended)
            }
            // Each planned moment once due, even when a crash took the time the run had left.
            if let crash = crashes.first, crash <= .now {
                crashes.removeFirst()
                try server.crashAndRestart()
                restarts += 1
            }
            if let kill = kills.first, kill <= .now {
                kills.removeFirst()
                killed += 1
                try self.kill(clients[Int.random(in: 0..<processes, using: &random)], then: start(_:_:), run: killed, &problems)
            }
            if let moment = silences.first, moment <= .now {
                silences.removeFirst()
                try silence(clients[Int.random(in: 0..<processes, using: &random)])
            }
            if Bool.random(using: &random) {
                let client = clients[Int.random(in: 0..<processes, using: &random)]
                if client.isCut { try client.relay.heal() } else { try client.relay.cut() }
                cuts += client.isCut ? 0 : 1
                client.isCut.toggle()
            } else if Int.random(in: 0..<4, using: &random) == 0 {
                try silence(clients[Int.random(in: 0..<processes, using: &random)])
            }
        }

        // The end: the children stop writing (and say so), every relay is healed, and all of them
        // synchronize, round after round, until every replica agrees with the server.
        _ = FileManager.default.createFile(atPath: scratch.file("stop"), contents: nil)
        for client in clients where !client.child.readLines(timeout: patience, until: { $0 == "stopped" }) {
            throw TortureError("client \(client.index) did not stop writing: \(client.child.lines.suffix(3))")
        }
        let writing = ContinuousClock.now - began
        for client in clients {
            if client.speakAt != nil { try client.relay.speak() }
            if client.isCut { try client.relay.heal() }
        }
        let healed = ContinuousClock.now
        var converged: Duration?
        var check: ReplicaConvergence?
        var round = 0
        while converged == nil, round < rounds {
            round += 1
            _ = FileManager.default.createFile(atPath: scratch.file("sync-\(round)"), contents: nil)
            var dumps: [ReplicaConvergence.Dump] = []
            for client in clients {
                let prefix = "round \(round) "
                guard client.child.readLines(timeout: patience, until: { $0.hasPrefix(prefix) }) else {
                    throw TortureError("client \(client.index) did not end round \(round): \(client.child.lines.suffix(3))")
                }
                let said = Array(client.child.lines.prefix { !$0.hasPrefix(prefix) })
                guard let dump = ReplicaConvergence.Dump(said) else {
                    throw TortureError("client \(client.index) printed no dump in round \(round): \(said.suffix(3))")
                }
                dumps.append(dump)
            }
            let result = ReplicaConvergence(
                keys: keys, writes: clients.flatMap { $0.lines.compactMap(ReplicaConvergence.Write.init) },
                serverRows: try ReplicaConvergence.serverRows(server.url, namespace), replicas: dumps)
            if result.problems.isEmpty { converged = .now - healed }
            check = result
        }
        _ = FileManager.default.createFile(atPath: scratch.file("exit"), contents: nil)
        for client in clients where client.child.finish(timeout: patience) != .exited(0) {
            problems.append("client \(client.index) ended badly: \(client.child.lines.suffix(3))")
        }
        guard let check else { throw TortureError("no round of synchronizing ran") }
        problems += check.problems

        let lines = clients.flatMap(\.lines)
        let writes = lines.filter { $0.hasPrefix("w ") }.count
        let samples = lines.filter { $0.hasPrefix("o ") }.map { $0.split(separator: " ").compactMap { Int($0) } }
        let outbox = samples.compactMap(\.first).max() ?? 0
        let waited = samples.compactMap { $0.count == 2 ? $0[1] : nil }.max() ?? 0
        var line = FigureLine("replica-soak postgres")
        line.info("\(length) s, \(processes) processes")
        line.info(String(format: "%d writes (%.1f/s, asked %d/s)", writes, Double(writes) / seconds(writing), rate))
        line.info("\(lines.filter { $0.hasPrefix("l ") }.count) beaten by a newer write at their commit")
        line.info("\(cuts) cuts, \(silenced) silences, \(restarts) server restarts, \(killed) kills")
        line.info(
            String(format: "largest outbox %d of %d keys, oldest unsent write %.1f s", outbox, keys.count, Double(waited) / 1000))
        line.info(
            converged.map { String(format: "converged %.2f s after the final heal (%d rounds)", seconds($0), round) }
                ?? "not converged after \(round) rounds")
        line.mustBeZero(check.divergentKeys.count, "divergent keys")
        line.mustBeZero(check.keysNotHoldingLastWrite.count, "keys not holding the last write")
        line.mustBeZero(check.pending, "writes still pending")
        line.mustBeZero(problems.count - check.problems.count, "child failures")
        line.print()
        for problem in problems.prefix(20) { complain("replica-soak (seed \(seed)): \(problem)") }
        return !line.failed
    }

    /// Kills the client with SIGKILL, settles the write it may have been in the middle of (it
    /// counts when the replica holds it under a stamp the client never logged), and starts it
    /// again on the same replica.
    static func kill(
        _ client: Client, then start: (Int, Int) throws -> ChildProcess, run: Int, _ problems: inout [String]
    ) throws {
        client.child.killHard()
        var lines = client.child.lines
        if let id = client.replicaID,
            let (line, mismatch) = try ReplicaConvergence.settleKilledWrite(client.lines, replica: client.file, replicaID: id)
        {
            lines.append(line)
            if let mismatch { problems.append(mismatch) }
        }
        client.earlierLines += lines
        client.child = try start(client.index, run)
    }

    /// Reads what the children print until `deadline`, so that none blocks on a full pipe.
    static func pump(_ clients: [Client], until deadline: ContinuousClock.Instant) {
        repeat {
            for client in clients { client.child.readLines(timeout: .milliseconds(3)) }
        } while ContinuousClock.now < deadline
    }

    /// The child side, `replica-soak-writer URL NAMESPACE FILE SEED INTERVAL CONTROL TAG`: immediate
    /// writes over ``keys`` (a quarter of them removals), one every INTERVAL µs on average, until the
    /// file CONTROL/stop exists. It prints "replica ID" first; before each write "w KEY VALUE"
    /// (VALUE "-" for a removal), after it "s KEY VALUE MS COUNTER REPLICA" (the stamp its replica
    /// holds) or "l KEY VALUE" (a newer write from elsewhere held the key already); every 200 ms
    /// "o N MS", its outbox's size (one entry per key) and how long its oldest entry has waited. Then "stopped"; for each file CONTROL/sync-N a synchronize, the
    /// replica's dump (``ReplicaConvergence/Dump/lines``) and "round N ok" (or the error); it exits
    /// when CONTROL/exit exists, or CONTROL itself or its parent is gone.
    static func writer(url: String, namespace: String, file: String, seed: UInt64, interval: Int, control: String, tag: String)
        throws -> Never
    {
        let replica = URL(fileURLWithPath: file)
        // Short: a cut relay refuses at once, and a silenced one should not hold a round for long.
        let store = try PreferenceStore(
            .postgres(url: url, namespace: namespace, replica: replica, timeout: .seconds(3)), durability: .immediate)
        let probe = ReplicaFile(at: replica, corruption: .fail)
        let replicaID = try probe.currentIdentity().replicaID
        say("replica \(replicaID)")
        // Ends at once when its parent is gone, or the parent's directory (the parent is ending).
        let parent = getppid()
        func exists(_ name: String) -> Bool {
            guard FileManager.default.fileExists(atPath: control) else { exit(0) }
            return FileManager.default.fileExists(atPath: control + "/" + name)
        }
        var random = SeededGenerator(seed: seed)
        var due = ContinuousClock.now
        var outboxShown = ContinuousClock.now - .seconds(1)
        var number = 0
        while !exists("stop"), getppid() == parent {
            // Paced by the clock, not by the writes' own time: the rate holds while fsyncs vary,
            // without a burst after a long stall.
            due += .microseconds(Int.random(in: 0...2 * interval, using: &random))
            let now = ContinuousClock.now
            if due > now {
                usleep(useconds_t(max(1, (due - now) / .microseconds(1))))
            } else if now - due > .seconds(1) {
                due = now
            }
            let key = keys[Int.random(in: 0..<keys.count, using: &random)]
            let value: String? = Int.random(in: 0..<4, using: &random) == 0 ? nil : "\(tag)-\(number)"
            number += 1
            say("w \(key) \(value ?? "-")")
            if let value { store.set(value, forKey: key) } else { store.removeValue(forKey: key) }
            if let held = try probe.stamp(of: key), held.replicaID == replicaID {
                say("s \(key) \(value ?? "-") \(held.stamp.milliseconds) \(held.stamp.counter) \(replicaID)")
            } else {
                say("l \(key) \(value ?? "-")")
            }
            if ContinuousClock.now - outboxShown >= .milliseconds(200) {
                let outbox = try probe.pendingSummary()
                let waited = outbox.oldest.map { Int(Date().timeIntervalSince($0) * 1000) } ?? 0
                say("o \(outbox.count) \(waited)")
                outboxShown = .now
            }
        }
        try store.flush()
        say("stopped")
        var round = 1
        let deadline = ContinuousClock.now + .seconds(600)  // bounded, should the parent hang
        while !exists("exit"), getppid() == parent, ContinuousClock.now < deadline {
            guard exists("sync-\(round)") else {
                usleep(5_000)
                continue
            }
            let error = synchronize(store, within: .seconds(30))
            try ReplicaConvergence.Dump(reading: replica).lines.forEach(say)
            say("round \(round) " + (error.map { "failed: \($0)" } ?? "ok"))
            round += 1
        }
        exit(0)
    }

    /// `store.synchronize(timeout:)` from synchronous code: nil when it returned, else its error.
    static func synchronize(_ store: PreferenceStore, within timeout: Duration) -> (any Error)? {
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<Void, any Error>
            do {
                try await store.synchronize(timeout: timeout)
                result = .success(())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds(timeout) + 10) == .success else {
            return TortureError("synchronize did not return")
        }
        if case .failure(let error) = outcome.withLock({ $0 }) { return error }
        return nil
    }
}
