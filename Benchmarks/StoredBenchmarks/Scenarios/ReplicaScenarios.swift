import Foundation
import StoredKit

/// The offline replica's local half (issue 39): a write also stamps its key and queues it in the
/// outbox, in the value's own SQLite transaction. Each is measured against a plain SQLite store
/// in the same run, alternating, so the ratio is what the stamp and the outbox cost.
enum ReplicaScenarios {
    static var all: [Scenario] { [deferredWrite, durableWrite, open] }

    static var deferredWrite: Scenario {
        Scenario(
            name: "replica.write.deferred", group: "offline replica",
            measures:
                "N changing Int writes then flush(), divided by N, on a replica file; rounds alternate with a plain SQLite store.",
            subject: "store.set(Int) + flush() / N on ReplicaFile",
            baselines: [
                Baseline("sqlite-store", "the same on PreferenceStore(.sqlite(at:))", goal: .costAtMost(1.3, source: "issue 39"))
            ],
            requires: .sqlite
        ) { context in
            let count = context.scaled(full: 2_000, quick: 300)
            let (replica, plain) = try stores(in: try context.makeDirectory("replica-deferred"))
            var next = 0
            func burst(_ store: PreferenceStore) throws -> Duration {
                let clock = ContinuousClock()
                let start = clock.now
                for _ in 0..<count {
                    next += 1
                    store.set(next, forKey: "value")
                }
                try store.flush()
                return clock.now - start
            }
            _ = try (burst(replica), burst(plain))  // warm-up
            var replicaRounds: [Double] = []
            var plainRounds: [Double] = []
            for _ in 0..<context.harness.rounds {
                replicaRounds.append(try burst(replica).seconds / Double(count))
                plainRounds.append(try burst(plain).seconds / Double(count))
            }
            return ScenarioOutcome(
                subject: .measured(Figure(kind: .time, samples: replicaRounds, operationsPerRound: count)),
                baselines: ["sqlite-store": .measured(Figure(kind: .time, samples: plainRounds, operationsPerRound: count))])
        }
    }

    static var durableWrite: Scenario {
        Scenario(
            name: "replica.write.durable", group: "offline replica",
            measures:
                "One set() with .immediate durability on a replica file, timed per write (p50/p99), alternating with a plain SQLite store's.",
            subject: "store.set(Int) with .immediate on ReplicaFile",
            baselines: [
                Baseline(
                    "sqlite-store", "the same on PreferenceStore(.sqlite(at:), durability: .immediate)",
                    goal: .costAtMost(1.3, source: "issue 39"))
            ],
            requires: .sqlite
        ) { context in
            let count = context.scaled(full: 300, quick: 30)
            let (replica, plain) = try stores(in: try context.makeDirectory("replica-durable"), durability: .immediate)
            let clock = ContinuousClock()
            var next = 0
            func write(_ store: PreferenceStore) -> Duration {
                next += 1
                let start = clock.now
                store.set(next, forKey: "value")
                return clock.now - start
            }
            let figures = context.harness.measurePairedLatencies(count: count) {
                write(replica)
            } against: {
                write(plain)
            }
            return ScenarioOutcome(subject: .measured(figures.subject), baselines: ["sqlite-store": .measured(figures.baseline)])
        }
    }

    static var open: Scenario {
        Scenario(
            name: "replica.open", group: "offline replica",
            measures:
                "Opening a store over a replica file of 1,000 keys (identity checked, clock resumed), alternating with opening the same data as a plain SQLite store.",
            subject: "PreferenceStore(ReplicaFile(at:))",
            baselines: [
                Baseline("sqlite-open", "PreferenceStore(.sqlite(at:)) of a copy", goal: .costAtMost(1.5, source: "issue 39"))
            ],
            requires: .sqlite
        ) { context in
            let count = context.scaled(full: 100, quick: 15)
            let directory = try context.makeDirectory("replica-open")
            let (replicaURL, plainURL) = files(in: directory)
            do {
                let (replica, plain) = try stores(in: directory, durability: .immediate)
                for store in [replica, plain] {
                    try store.transaction { tx in for key in 0..<1_000 { tx.set(key, forKey: "key\(key)") } }
                }
            }
            let clock = ContinuousClock()
            let figures = try context.harness.measurePairedLatencies(count: count) {
                let start = clock.now
                let store = try PreferenceStore(ReplicaFile(at: replicaURL))
                let elapsed = clock.now - start
                withExtendedLifetime(store) {}
                return elapsed
            } against: {
                let start = clock.now
                let store = try PreferenceStore(.sqlite(at: plainURL))
                let elapsed = clock.now - start
                withExtendedLifetime(store) {}
                return elapsed
            }
            return ScenarioOutcome(subject: .measured(figures.subject), baselines: ["sqlite-open": .measured(figures.baseline)])
        }
    }

    /// The replica file and the plain SQLite file a scenario compares, side by side in `directory`.
    private static func files(in directory: URL) -> (replica: URL, plain: URL) {
        (directory.appending(path: "replica.sqlite"), directory.appending(path: "plain.sqlite"))
    }

    /// A store over each of ``files(in:)``.
    private static func stores(
        in directory: URL, durability: Durability = .deferred
    ) throws -> (replica: PreferenceStore, plain: PreferenceStore) {
        let (replica, plain) = files(in: directory)
        return (
            try PreferenceStore(ReplicaFile(at: replica), durability: durability),
            try PreferenceStore(.sqlite(at: plain), durability: durability)
        )
    }
}
