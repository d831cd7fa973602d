import Foundation
import StoredKit

/// A commit costs what it changes, not what the store holds: one key written to a big store,
/// against the same write to a store of one key.
enum LargeStoreScenarios {
    static let keys = 10_000

    static var all: [Scenario] { [commit] }

    static var commit: Scenario {
        Scenario(
            name: "write.large-store.sqlite", group: "write, deferred",
            measures:
                "One set() then flush() on an SQLite store of \(keys) keys, timed per write (p50/p99), in turns "
                + "with the same on a store of one key.",
            subject: "store.set(Int) + flush() with \(keys) keys stored",
            baselines: [
                Baseline(
                    "one-key-store", "the same set() + flush() on a store holding one key",
                    goal: .costAtMost(1.3, source: "a commit costs what it changes"))
            ],
            requires: .sqlite
        ) { context in
            let count = context.scaled(full: 1_000, quick: 100)
            var floor: Figure?
            let subject = try Side.subject(on: .file(.sqlite)) {
                let large = try FileStoreKind.sqlite.openStore(in: try context.makeDirectory("large-store"))
                let small = try FileStoreKind.sqlite.openStore(in: try context.makeDirectory("one-key-store"))
                try large.transaction { tx in for key in 0..<keys { tx.set(key, forKey: "key\(key)") } }
                try large.flush()
                let clock = ContinuousClock()
                var next = 0
                func write(_ store: PreferenceStore) throws -> Duration {
                    next += 1
                    let start = clock.now
                    store.set(next, forKey: "key0")
                    try store.flush()
                    return clock.now - start
                }
                let figures = try context.harness.measurePairedLatencies(count: count) {
                    try write(large)
                } against: {
                    try write(small)
                }
                floor = figures.baseline
                return figures.subject
            }
            var outcome = ScenarioOutcome(subject: subject)
            if let floor { outcome.baselines["one-key-store"] = .measured(floor) }
            return outcome
        }
    }
}
