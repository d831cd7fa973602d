import Foundation
import StoredKit
import StoredKitPostgres
import Synchronization

/// The PostgreSQL backend against raw libpq on the same server (``RawPostgresBaseline``), and
/// against what a user of Foundation would otherwise do, on a server with durable settings
/// (``BenchPostgresServer``: the bench starts a throwaway one when none is given).
enum PostgresScenarios {
    static var all: [Scenario] {
        [durableWrite, deferredWrite, storedRead, notificationLatency, openLargeNamespace, manyNamespaces] + accessRules
    }

    /// Runs `body` with the server, or says why the scenario cannot run here.
    static func withServer(_ body: (BenchPostgresServer) throws -> ScenarioOutcome) throws -> ScenarioOutcome {
        let server: BenchPostgresServer
        do {
            server = try BenchPostgresServer.shared()
        } catch {
            return ScenarioOutcome(subject: .pending("no PostgreSQL server: \(error)"))
        }
        return try body(server)
    }

    static func namespace(_ label: String) -> String { "bench-\(label)-\(UUID().uuidString.prefix(8))" }

    static var durableWrite: Scenario {
        Scenario(
            name: "postgres.write.durable", group: "postgresql",
            measures: "One set() with .immediate durability on a PostgreSQL namespace over TCP, per write (p50/p99), "
                + "alternating with each baseline.",
            subject: "store.set(Int) with .immediate",
            baselines: [
                Baseline(
                    "raw-transaction", "raw libpq: BEGIN, revision bump, upsert, pg_notify, COMMIT",
                    goal: .costAtMost(1.2, source: "issue 17")),
                Baseline("raw-upsert", "raw libpq: one autocommit upsert (no revision, no NOTIFY)"),
            ]
        ) { context in
            try withServer { server in
                let count = context.scaled(full: 300, quick: 30)
                let store = try PreferenceStore(
                    .postgres(url: server.url, namespace: namespace("durable")), durability: .immediate)
                let raw = try RawPostgresBaseline(url: server.url)
                let rawNamespace = namespace("durable-raw")
                let clock = ContinuousClock()
                var next = 0
                func write() -> Duration {
                    next += 1
                    let start = clock.now
                    store.set(next, forKey: "value")
                    return clock.now - start
                }
                let transaction = try context.harness.measurePairedLatencies(count: count, write) {
                    try raw.durableTransaction(namespace: rawNamespace, value: next)
                }
                let upsert = try context.harness.measurePairedLatencies(count: count, write) { try raw.bareUpsert(value: next) }
                let failures = store.recentEvents.filter { if case .commitFailed = $0 { true } else { false } }
                guard failures.isEmpty else { throw BenchmarkError.unexpected("a durable write failed: \(failures)") }
                return ScenarioOutcome(
                    subject: .measured(transaction.subject),
                    baselines: ["raw-transaction": .measured(transaction.baseline), "raw-upsert": .measured(upsert.baseline)],
                    notes: [
                        String(format: "set() alternating with the bare upsert: p50 %.0f µs", (upsert.subject.p50 ?? 0) * 1e6)
                    ])
            }
        }
    }

    static var deferredWrite: Scenario {
        Scenario(
            name: "postgres.write.deferred", group: "postgresql",
            measures: "set() of a changing Int with the default deferred durability on a PostgreSQL namespace, in a "
                + "tight loop: what the caller pays, the group commits (every 50 ms) running meanwhile on the same cores.",
            subject: "store.set(Int), deferred",
            baselines: [Baseline("userdefaults", "UserDefaults.set(Int)", goal: .faster(20, source: "issue 17"))]
        ) { context in
            try withServer { server in
                let store = try PreferenceStore(.postgres(url: server.url, namespace: namespace("deferred")))
                var next = 0
                let subject = context.harness.measure { count in
                    for _ in 0..<count {
                        next += 1
                        store.set(next, forKey: "value")
                    }
                }
                let clock = ContinuousClock()
                let flushStart = clock.now
                try store.flush()
                let flush = clock.now - flushStart
                let baseline = try TemporaryDefaults.with { defaults in
                    context.harness.measure { count in
                        for _ in 0..<count {
                            next += 1
                            defaults.set(next, forKey: "value")
                        }
                    }
                }
                return ScenarioOutcome(
                    subject: .measured(subject), baselines: ["userdefaults": .measured(baseline)],
                    notes: [String(format: "the flush() after the loop (one durable commit): %.2f ms", flush.seconds * 1e3)])
            }
        }
    }

    static var storedRead: Scenario {
        Scenario(
            name: "postgres.read.stored", group: "postgresql",
            measures: "Reading an unchanged @Stored<Int> of a PostgreSQL store in a tight loop.",
            subject: "@Stored<Int> read (PostgreSQL store)",
            baselines: [Baseline("sqlite", "the same read on a local SQLite store", goal: .costAtMost(1.2, source: "issue 17"))]
        ) { context in
            try withServer { server in
                let remote = HotReadScenarios.Settings(
                    store: try PreferenceStore(.postgres(url: server.url, namespace: namespace("read"))))
                let local = HotReadScenarios.Settings(
                    store: try FileStoreKind.sqlite.openStore(in: try context.makeDirectory("read-local")))
                remote.count = 42
                local.count = 42
                let subject = context.harness.measure { count in for _ in 0..<count { blackHole(remote.count) } }
                let baseline = context.harness.measure { count in for _ in 0..<count { blackHole(local.count) } }
                return ScenarioOutcome(subject: .measured(subject), baselines: ["sqlite": .measured(baseline)])
            }
        }
    }
}
