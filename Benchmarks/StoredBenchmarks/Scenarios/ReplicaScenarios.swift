import Foundation
import StoredKit
import StoredKitPostgres
import Synchronization

/// The offline replica (issue 39), `PreferenceStore(.postgres(url:namespace:replica:))`, against
/// its floors measured in the same run, alternating: a write goes to the replica's SQLite file
/// (stamped, queued in the outbox) and a background thread sends it, so a write must cost about
/// what a plain SQLite store's does, an open what opening the SQLite file does (the server down),
/// and a notice about what a plain PostgreSQL store's does. The writes and the notice run with the
/// server reachable, the realistic case: the syncer's uploads and catch-up reads then compete with
/// the caller for the machine's cores, and are part of what is measured. Each also measures the
/// replica file alone (``ReplicaFile``, no syncer), to show what the syncer adds.
enum ReplicaScenarios {
    static var all: [Scenario] { [deferredWrite, durableWrite, open, notificationLatency, syncPending] }

    static var syncPending: Scenario {
        Scenario(
            name: "replica.sync.pending", group: "offline replica",
            measures:
                "A replica that made 10,000 writes offline (10,000 keys in its outbox) opens with the server reachable "
                + "and synchronize() returns: every write sent (stamped, in batches of 500, one transaction each), "
                + "acknowledged, and the namespace read back and merged. Per sync, alternating with raw libpq sending "
                + "the same 10,000 stamped rows in one transaction (bump, 10,000 prepared upserts, COMMIT).",
            subject: "open .postgres(url:namespace:replica:) + synchronize() of 10,000 pending writes",
            baselines: [
                Baseline(
                    "raw-libpq", "the same rows, stamped, in one libpq transaction of prepared statements",
                    goal: .costAtMost(2, source: "issue 40"))
            ]
        ) { context in
            try PostgresScenarios.withServer { server in
                let (rounds, keys) = (context.scaled(full: 5, quick: 1), context.scaled(full: 10_000, quick: 500))
                let raw = try RawPostgresBaseline(url: server.url)
                let clock = ContinuousClock()
                var (replicated, baseline): ([Double], [Double]) = ([], [])
                for round in 0..<rounds {
                    let directory = try context.makeDirectory("replica-sync-\(round)")
                    let file = directory.appending(path: "offline.replica")
                    do {  // the offline writes: not timed
                        let offline = try PreferenceStore(ReplicaFile(at: file), durability: .immediate)
                        try offline.transaction { tx in for key in 0..<keys { tx.set(key, forKey: "key\(key)") } }
                    }
                    let namespace = PostgresScenarios.namespace("replica-sync")
                    let start = clock.now
                    let store = try PreferenceStore(.postgres(url: server.url, namespace: namespace, replica: file))
                    try synchronize(store, timeout: .seconds(300))
                    replicated.append((clock.now - start).seconds)
                    guard store.syncState?.pendingWrites == 0 else {
                        throw BenchmarkError.unexpected("the outbox still holds \(store.syncState?.pendingWrites ?? -1) writes")
                    }
                    let sent = try raw.count(
                        "SELECT count(*) FROM storedkit.preferences WHERE namespace = '\(namespace)'")
                    guard sent == keys else { throw BenchmarkError.unexpected("the server holds \(sent) of \(keys) rows") }

                    let rawNamespace = PostgresScenarios.namespace("replica-sync-raw")
                    let now = Int64(Date().timeIntervalSince1970 * 1000)
                    baseline.append(try raw.stampedBatch(namespace: rawNamespace, count: keys, milliseconds: now).seconds)
                }
                return ScenarioOutcome(
                    subject: .measured(Figure(latencies: replicated)),
                    baselines: ["raw-libpq": .measured(Figure(latencies: baseline))],
                    notes: ["\(keys) pending writes per sync, \(rounds) syncs each way"])
            }
        }
    }

    static var deferredWrite: Scenario {
        Scenario(
            name: "replica.write.deferred", group: "offline replica",
            measures:
                "N changing Int writes then flush(), divided by N, on a replicated store whose syncer uploads to a "
                + "reachable server meanwhile; rounds alternate with a plain SQLite store and the replica file alone.",
            subject: "store.set(Int) + flush() / N on .postgres(url:namespace:replica:)",
            baselines: [
                Baseline("sqlite-store", "the same on PreferenceStore(.sqlite(at:))", goal: .costAtMost(1.3, source: "issue 39")),
                Baseline("replica-file", "the same on the replica file alone (no syncer, nothing sent)"),
            ]
        ) { context in
            try PostgresScenarios.withServer { server in
                let count = context.scaled(full: 2_000, quick: 300)
                let directory = try context.makeDirectory("replica-deferred")
                let namespace = PostgresScenarios.namespace("replica-deferred")
                let stores = try Stores(in: directory, url: server.url, namespace: namespace, durability: .deferred)
                var next = 0
                func burst(_ store: PreferenceStore) throws -> Double {
                    let clock = ContinuousClock()
                    let start = clock.now
                    for _ in 0..<count {
                        next += 1
                        store.set(next, forKey: "value")
                    }
                    try store.flush()
                    return (clock.now - start).seconds / Double(count)
                }
                _ = try (burst(stores.replicated), burst(stores.plain), burst(stores.local))  // warm-up
                var (replicated, plain, local): ([Double], [Double], [Double]) = ([], [], [])
                for _ in 0..<context.harness.rounds {
                    replicated.append(try burst(stores.replicated))
                    plain.append(try burst(stores.plain))
                    local.append(try burst(stores.local))
                }
                let landed = try stores.checkLanded(url: server.url, namespace: namespace)
                return ScenarioOutcome(
                    subject: .measured(Figure(kind: .time, samples: replicated, operationsPerRound: count)),
                    baselines: [
                        "sqlite-store": .measured(Figure(kind: .time, samples: plain, operationsPerRound: count)),
                        "replica-file": .measured(Figure(kind: .time, samples: local, operationsPerRound: count)),
                    ],
                    notes: [landed])
            }
        }
    }

    static var durableWrite: Scenario {
        Scenario(
            name: "replica.write.durable", group: "offline replica",
            measures:
                "One set() with .immediate durability on a replicated store whose syncer uploads each write to a "
                + "reachable server, per write (p50/p99), alternating with a plain SQLite store's and the replica file's.",
            subject: "store.set(Int) with .immediate on .postgres(url:namespace:replica:)",
            baselines: [
                Baseline(
                    "sqlite-store", "the same on PreferenceStore(.sqlite(at:), durability: .immediate)",
                    goal: .costAtMost(1.3, source: "issue 39")),
                Baseline("replica-file", "the same on the replica file alone (no syncer, nothing sent)"),
            ]
        ) { context in
            try PostgresScenarios.withServer { server in
                let count = context.scaled(full: 300, quick: 30)
                let directory = try context.makeDirectory("replica-durable")
                let namespace = PostgresScenarios.namespace("replica-durable")
                let stores = try Stores(in: directory, url: server.url, namespace: namespace, durability: .immediate)
                let clock = ContinuousClock()
                var next = 0
                func write(_ store: PreferenceStore) -> Double {
                    next += 1
                    let start = clock.now
                    store.set(next, forKey: "value")
                    return (clock.now - start).seconds
                }
                for _ in 0..<3 { _ = (write(stores.replicated), write(stores.plain), write(stores.local)) }  // warm-up
                var (replicated, plain, local): ([Double], [Double], [Double]) = ([], [], [])
                for _ in 0..<count {
                    replicated.append(write(stores.replicated))
                    plain.append(write(stores.plain))
                    local.append(write(stores.local))
                }
                let failures = stores.replicated.recentEvents.filter { if case .commitFailed = $0 { true } else { false } }
                guard failures.isEmpty else { throw BenchmarkError.unexpected("a durable write failed: \(failures)") }
                let landed = try stores.checkLanded(url: server.url, namespace: namespace)
                return ScenarioOutcome(
                    subject: .measured(Figure(latencies: replicated)),
                    baselines: [
                        "sqlite-store": .measured(Figure(latencies: plain)), "replica-file": .measured(Figure(latencies: local)),
                    ],
                    notes: [landed])
            }
        }
    }

    static var open: Scenario {
        Scenario(
            name: "replica.open", group: "offline replica",
            measures:
                "Opening a replicated store over a replica of 1,000 keys (outbox empty) while its server is down (a port "
                + "nobody listens on), until every value is readable; alternating with opening the same data as a plain "
                + "SQLite store, and as the replica file alone.",
            subject: "PreferenceStore(.postgres(url:namespace:replica:)), server down",
            baselines: [
                Baseline(
                    "sqlite-open", "PreferenceStore(.sqlite(at:)) of the same data", goal: .costAtMost(1.5, source: "issue 39")),
                Baseline("replica-file", "PreferenceStore(ReplicaFile(at:)) of the replica (no syncer)"),
            ]
        ) { context in
            let count = context.scaled(full: 100, quick: 15)
            let keys = 1_000
            let directory = try context.makeDirectory("replica-open")
            let replicaURL = directory.appending(path: "replicated.replica")
            let plainURL = directory.appending(path: "plain.sqlite")
            try prepareOpen(replica: replicaURL, plain: plainURL, keys: keys)
            let deadURL = "postgresql://postgres@127.0.0.1:\(try unusedPort())/postgres?connect_timeout=5"
            let clock = ContinuousClock()
            var opened: [Int] = []
            func timeOpen(_ open: () throws -> PreferenceStore) throws -> Double {
                let start = clock.now
                let store = try open()
                let keyCount = store.keys.count
                let elapsed = clock.now - start
                opened.append(keyCount)
                return elapsed.seconds
            }
            let subjectOpen = { try PreferenceStore(.postgres(url: deadURL, namespace: "bench-open", replica: replicaURL)) }
            let plainOpen = { try PreferenceStore(.sqlite(at: plainURL)) }
            let localOpen = { try PreferenceStore(ReplicaFile(at: replicaURL)) }
            for _ in 0..<3 { _ = try (timeOpen(subjectOpen), timeOpen(plainOpen), timeOpen(localOpen)) }  // warm-up
            var (replicated, plain, local): ([Double], [Double], [Double]) = ([], [], [])
            for _ in 0..<count {
                replicated.append(try timeOpen(subjectOpen))
                plain.append(try timeOpen(plainOpen))
                local.append(try timeOpen(localOpen))
            }
            guard opened.allSatisfy({ $0 == keys }) else {
                throw BenchmarkError.unexpected("an open read \(Set(opened).sorted()) keys, not \(keys)")
            }
            let offline = try PreferenceStore(.postgres(url: deadURL, namespace: "bench-open", replica: replicaURL))
            guard offline.syncState?.isConnected != true else {
                throw BenchmarkError.unexpected("the replicated store says it is connected to a server that is down")
            }
            let figure = Figure(latencies: replicated)
            return ScenarioOutcome(
                subject: .measured(figure),
                baselines: [
                    "sqlite-open": .measured(Figure(latencies: plain)), "replica-file": .measured(Figure(latencies: local)),
                ],
                notes: [
                    String(
                        format: "the server down: p99 %.2f ms, against the 5 s connect timeout (the open does not wait for it)",
                        (figure.p99 ?? 0) * 1e3)
                ])
        }
    }

    static var notificationLatency: Scenario {
        Scenario(
            name: "replica.notify.latency", group: "offline replica",
            measures:
                "Process A commits a stamped write of a key (as a replica's upload does: bump, notice, stamped upsert, "
                + "raw libpq); an observer in process B (here) fires, its store a replica of the namespace (the notice "
                + "wakes the syncer, which reads the server into the replica file). A→B delay on CLOCK_MONOTONIC, "
                + "p50/p99, in rounds alternating with the same observer on a plain PostgreSQL store.",
            subject: "store.observe in B (.postgres(url:namespace:replica:)) ← a stamped commit in A",
            baselines: [
                Baseline(
                    "postgres-store", "the same observer on PreferenceStore(.postgres(url:namespace:))",
                    goal: .costAtMost(1.2, source: "issue 39"))
            ]
        ) { context in
            try PostgresScenarios.withServer { server in
                let (rounds, perRound) = (context.scaled(full: 4, quick: 1), context.scaled(full: 50, quick: 20))
                var (replicated, plain): ([Double], [Double]) = ([], [])
                let writer = "postgres-stamped-notify-writer"
                // In turns, so a machine that grows busier or quieter during the run weighs on both alike.
                for _ in 0..<rounds {
                    let directory = try context.makeDirectory("replica-notify")
                    replicated += try PostgresScenarios.notifyLatencies(url: server.url, count: perRound, writer: writer) {
                        namespace in
                        try PreferenceStore(
                            .postgres(
                                url: server.url, namespace: namespace, replica: directory.appending(path: "observer.replica")))
                    }
                    plain += try PostgresScenarios.notifyLatencies(url: server.url, count: perRound, writer: writer)
                }
                return ScenarioOutcome(
                    subject: .measured(Figure(latencies: replicated)),
                    baselines: ["postgres-store": .measured(Figure(latencies: plain))],
                    notes: [
                        "B was notified of \(replicated.count) of \(rounds * perRound) writes through the replica, "
                            + "\(plain.count) through the plain store (writes \(PostgresScenarios.writeIntervalMilliseconds) ms apart)"
                    ])
            }
        }
    }

    /// The three stores a write scenario alternates between, side by side in one directory.
    private struct Stores {
        let replicated: PreferenceStore
        let plain: PreferenceStore
        let local: PreferenceStore

        init(in directory: URL, url: String, namespace: String, durability: Durability) throws {
            replicated = try PreferenceStore(
                .postgres(url: url, namespace: namespace, replica: directory.appending(path: "replicated.replica")),
                durability: durability)
            plain = try PreferenceStore(.sqlite(at: directory.appending(path: "plain.sqlite")), durability: durability)
            local = try PreferenceStore(ReplicaFile(at: directory.appending(path: "local.replica")), durability: durability)
        }

        /// Synchronizes the replicated store and checks that the server holds its last write (the
        /// writes were really sent while they were timed), for the report.
        func checkLanded(url: String, namespace: String) throws -> String {
            let expected = replicated.value(forKey: "value", as: Int.self)
            let clock = ContinuousClock()
            let start = clock.now
            try synchronize(replicated)
            let waited = clock.now - start
            let server = try PreferenceStore(.postgres(url: url, namespace: namespace))
            let found = server.value(forKey: "value", as: Int.self)
            guard found == expected else {
                throw BenchmarkError.unexpected(
                    "the server holds \(String(describing: found)), the replica \(String(describing: expected))")
            }
            return String(
                format: "the server holds the last write once synchronize() returned (it waited %.1f ms after the last round)",
                waited.seconds * 1e3)
        }
    }

    /// Blocks until `store.synchronize(timeout:)` returns: what the replica held is on the server.
    static func synchronize(_ store: PreferenceStore, timeout: Duration = .seconds(30)) throws {
        final class Outcome: Sendable {
            let error = Mutex<(any Error)?>(nil)
            let done = DispatchSemaphore(value: 0)
        }
        let outcome = Outcome()
        Task {
            do {
                try await store.synchronize(timeout: timeout)
            } catch {
                outcome.error.withLock { $0 = error }
            }
            outcome.done.signal()
        }
        outcome.done.wait()
        if let error = outcome.error.withLock({ $0 }) { throw error }
    }

    /// A replica file of `keys` Int keys whose outbox is empty (as after a sync), and a plain SQLite
    /// file of the same values.
    private static func prepareOpen(replica: URL, plain: URL, keys: Int) throws {
        let file = ReplicaFile(at: replica)
        let replicaStore = try PreferenceStore(file, durability: .immediate)
        let plainStore = try PreferenceStore(.sqlite(at: plain), durability: .immediate)
        for store in [replicaStore, plainStore] {
            try store.transaction { tx in for key in 0..<keys { tx.set(key, forKey: "key\(key)") } }
        }
        if let newest = try file.pendingWrites(limit: keys + 1).map(\.stamp).max() {
            try file.acknowledge(through: newest)
        }
        guard try file.pendingSummary().count == 0 else { throw BenchmarkError.unexpected("the replica's outbox is not empty") }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on: bound by the kernel's choice, then closed,
    /// so a connection there is refused at once (the server is down, the machine is not).
    static func unusedPort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchmarkError.unexpected("socket() failed (errno \(errno))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw BenchmarkError.unexpected("cannot bind a port on 127.0.0.1 (errno \(errno))") }
        return UInt16(bigEndian: address.sin_port)
    }
}
