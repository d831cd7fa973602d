import Foundation
import StoredKit
import StoredKitPostgres

// The PostgreSQL scenarios that involve other processes and many namespaces.
extension PostgresScenarios {
    /// Time between two writes of process A: long enough for each to be noticed on its own.
    static let writeIntervalMilliseconds = 20

    static var notificationLatency: Scenario {
        Scenario(
            name: "postgres.notify.latency", group: "postgresql",
            measures: "Process A sets a key and flushes; an observer in process B (here) fires. A→B delay on "
                + "CLOCK_MONOTONIC, p50/p99; goal p50 ≤ 2 ms, p99 ≤ 20 ms (issue 17).",
            subject: "store.observe in B ← set + flush() in A",
            baselines: [Baseline("raw-notify", "raw libpq: upsert + pg_notify committed in A, LISTEN and poll in B")]
        ) { context in
            try withServer { server in
                let count = context.scaled(full: 200, quick: 20)
                let latencies = try notifyLatencies(url: server.url, count: count)
                let rawLatencies = try rawNotifyLatencies(url: server.url, count: count)
                let figure = Figure(latencies: latencies)
                let p50 = (figure.p50 ?? 0) * 1e3
                let p99 = (figure.p99 ?? 0) * 1e3
                let verdict = p50 <= 2 && p99 <= 20 ? "met" : "MISSED"
                return ScenarioOutcome(
                    subject: .measured(figure),
                    baselines: rawLatencies.isEmpty ? [:] : ["raw-notify": .measured(Figure(latencies: rawLatencies))],
                    notes: [
                        "B was notified of \(latencies.count) of \(count) writes (writes \(writeIntervalMilliseconds) ms apart)",
                        String(format: "goal p50 ≤ 2 ms and p99 ≤ 20 ms: %@ (p50 %.2f ms, p99 %.2f ms)", verdict, p50, p99),
                    ])
            }
        }
    }

    /// The delays in seconds from a raw libpq writer's commit (an upsert and `pg_notify` in one
    /// transaction, child process A) to this process's `poll` hearing it, `count` writes
    /// ``writeIntervalMilliseconds`` apart: the floor under StoredKit's notice, with no catch-up read.
    static func rawNotifyLatencies(url: String, count: Int) throws -> [Double] {
        let raw = try RawPostgresBaseline(url: url)
        var writer: ChildProcess?
        let latencies = try raw.receive(count, on: "bench_raw_notify", timeout: .seconds(30)) {
            let child = try ChildProcess(["postgres-raw-notify-writer", url, "\(count)", "\(writeIntervalMilliseconds)"])
            try child.expect("ready")
            child.send("go")
            writer = child
        }
        _ = try writer?.waitForExit()
        return latencies
    }

    /// `--child postgres-notify-writer <url> <namespace> <count> <interval-ms>`: writes its send time.
    static func notifyWriterChild(_ arguments: [String]) throws {
        guard arguments.count == 4, let count = Int(arguments[2]), let interval = UInt32(arguments[3]) else {
            throw BenchmarkError.unexpected("usage: --child postgres-notify-writer <url> <namespace> <count> <interval-ms>")
        }
        let store = try PreferenceStore(.postgres(url: arguments[0], namespace: arguments[1]))
        try NotificationScenarios.sendPings(from: store, count, interval)
    }

    /// `--child postgres-stamped-notify-writer <url> <namespace> <count> <interval-ms>`: writes its
    /// send time to ``NotificationScenarios/ping`` in raw libpq, stamped as a replica's upload is (a
    /// plain store's write carries no stamp yet, and a replica keeps its own later-stamped value).
    static func stampedNotifyWriterChild(_ arguments: [String]) throws {
        guard arguments.count == 4, let count = Int(arguments[2]), let interval = UInt32(arguments[3]) else {
            throw BenchmarkError.unexpected(
                "usage: --child postgres-stamped-notify-writer <url> <namespace> <count> <interval-ms>")
        }
        let raw = try RawPostgresBaseline(url: arguments[0])
        ChildSide.say("ready")
        try ChildSide.waitForGo()
        for index in 0..<count {
            try raw.stampedTransaction(
                namespace: arguments[1], key: NotificationScenarios.ping.name, value: Int(monotonicNanoseconds()),
                milliseconds: Int64(Date().timeIntervalSince1970 * 1000), counter: index, replica: "bench-stamped-writer")
            usleep(interval * 1_000)
        }
        ChildSide.say("done")
    }

    /// `--child postgres-raw-notify-writer <url> <count> <interval-ms>`: the same writes in raw libpq.
    static func rawNotifyWriterChild(_ arguments: [String]) throws {
        guard arguments.count == 3, let count = Int(arguments[1]), let interval = UInt32(arguments[2]) else {
            throw BenchmarkError.unexpected("usage: --child postgres-raw-notify-writer <url> <count> <interval-ms>")
        }
        let raw = try RawPostgresBaseline(url: arguments[0])
        ChildSide.say("ready")
        try ChildSide.waitForGo()
        for _ in 0..<count {
            try raw.notifyingTransaction(channel: "bench_raw_notify", payload: String(monotonicNanoseconds()))
            usleep(interval * 1_000)
        }
        ChildSide.say("done")
    }

    static var openLargeNamespace: Scenario {
        Scenario(
            name: "postgres.open.10k", group: "postgresql",
            measures: "Opening a store on a namespace of 10,000 Int keys, the process already connected to the server "
                + "(another store open), until every value is readable.",
            subject: "PreferenceStore(.postgres(url:namespace:))",
            baselines: [
                Baseline(
                    "raw-select", "raw libpq: the prepared SELECT of the namespace's rows, every field touched",
                    goal: .costAtMost(1.5, source: "issue 17")),
                Baseline("raw-dictionary", "raw libpq: the same SELECT read into a [String: Int]"),
            ]
        ) { context in
            try withServer { server in
                let keys = 10_000
                let warm = try PreferenceStore(.postgres(url: server.url, namespace: namespace("warm")))
                let large = namespace("open")
                let raw = try RawPostgresBaseline(url: server.url)
                try fill(large, keys: keys, raw)
                var opened = 0
                let subject = try context.harness.measureRounds(operations: 1) {
                    let clock = ContinuousClock()
                    let start = clock.now
                    let store = try PreferenceStore(.postgres(url: server.url, namespace: large))
                    let elapsed = clock.now - start
                    opened = store.keys.count
                    return elapsed
                }
                guard opened == keys else { throw BenchmarkError.unexpected("the store opened \(opened) of \(keys) keys") }
                var selected = 0
                let baseline = try context.harness.measureRounds(operations: 1) {
                    let (rows, duration) = try raw.selectRows(namespace: large)
                    selected = rows
                    return duration
                }
                guard selected == keys else { throw BenchmarkError.unexpected("the SELECT returned \(selected) rows") }
                let dictionary = try context.harness.measureRounds(operations: 1) {
                    try raw.selectDictionary(namespace: large).duration
                }
                // Where the time goes: the backend's read alone, without the engine and the watch.
                let load = try context.harness.measureRounds(operations: 1) {
                    let backend = PostgresBackend.postgres(url: server.url, namespace: large)
                    let clock = ContinuousClock()
                    let start = clock.now
                    blackHole(try backend.load().values.count)
                    return clock.now - start
                }
                withExtendedLifetime(warm) {}
                return ScenarioOutcome(
                    subject: .measured(subject),
                    baselines: ["raw-select": .measured(baseline), "raw-dictionary": .measured(dictionary)],
                    notes: [String(format: "of which PostgresBackend.load() alone: %.2f ms", load.median * 1e3)])
            }
        }
    }

    /// Writes `keys` Int rows into `namespace` in one transaction, marked as the store's own so
    /// the hand-edit trigger leaves them alone.
    private static func fill(_ namespace: String, keys: Int, _ raw: RawPostgresBaseline) throws {
        try raw.run(
            """
            BEGIN;
            SELECT set_config('storedkit.writer', 'on', true);
            INSERT INTO storedkit.namespaces (namespace, revision) VALUES ('\(namespace)', 1);
            INSERT INTO storedkit.preferences (namespace, key, type, int_value, revision)
                SELECT '\(namespace)', 'key.' || i, 'int', i, 1 FROM generate_series(1, \(keys)) AS i;
            COMMIT
            """)
    }

    static var manyNamespaces: Scenario {
        Scenario(
            name: "postgres.open.namespaces", group: "postgresql",
            measures: "Opening 10,000 stores on distinct namespaces in one process (1,000 with --quick), each kept open "
                + "and watched: time per open, memory and server connections used.",
            subject: "10,000 × PreferenceStore(.postgres(url:namespace:))"
        ) { context in
            try withServer { server in
                let count = context.scaled(full: 10_000, quick: 1_000)
                let raw = try RawPostgresBaseline(url: server.url)
                let prefix = namespace("many")
                // A URL of their own gives these stores a pool of their own, whose connections the
                // server counts by name.
                let name = "bench-many-\(prefix.suffix(8))"
                let url = server.url + (server.url.contains("?") ? "&" : "?") + "application_name=\(name)"
                let residentBefore = try residentBytes()
                var stores: [PreferenceStore] = []
                stores.reserveCapacity(count)
                let clock = ContinuousClock()
                let start = clock.now
                for index in 0..<count {
                    stores.append(try PreferenceStore(.postgres(url: url, namespace: "\(prefix)-\(index)")))
                }
                let elapsed = clock.now - start
                let residentAfter = try residentBytes()
                let connections = try raw.count("SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)'")
                let perStore = Double(residentAfter - residentBefore) / Double(count)
                withExtendedLifetime(stores) {}
                return ScenarioOutcome(
                    subject: .measured(
                        Figure(kind: .time, samples: [elapsed.seconds / Double(count)], operationsPerRound: count)),
                    notes: [
                        String(format: "%d stores opened in %.2f s", count, elapsed.seconds),
                        String(
                            format: "resident memory +%.1f MiB (%.1f KiB per open store)",
                            Double(residentAfter - residentBefore) / 1_048_576, perStore / 1024),
                        "server connections used by the \(count) stores: \(connections) (the listener and the command pool)",
                    ])
            }
        }
    }

    /// This process's resident set size now (`VmRSS`), in bytes.
    private static func residentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            if let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap({ Int($0) }) {
                return kilobytes * 1024
            }
        }
        throw BenchmarkError.unexpected("no VmRSS line in /proc/self/status")
    }
}
