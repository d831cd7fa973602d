import Foundation
import StoredKit

/// MMKV's benchmark shape: N random integers written under N keys, then read back.
enum BulkScenarios {
    static let counts = [1_000, 10_000]

    static var all: [Scenario] {
        StoreUnderTest.all.flatMap { target in counts.flatMap { [write(count: $0, on: target), read(count: $0, on: target)] } }
    }

    static func label(_ count: Int) -> String { "\(count / 1_000)k" }

    static func write(count: Int, on target: StoreUnderTest) -> Scenario {
        Scenario(
            name: "bulk.write.\(label(count)).\(target.name)", group: "bulk",
            measures:
                "\(count) random-int writes under distinct keys into an empty \(target.name) store, then flush(); per write.",
            subject: "store.set(Int, forKey:) ×\(count) + flush()",
            baselines: [
                Baseline("userdefaults", "UserDefaults.set ×\(count) + synchronize()"),
                Baseline("raw-sqlite", "raw SQLite upserts in one transaction"),
            ],
            requires: target.requires
        ) { context in
            let keys = PreferenceContent.keys(count)
            let values = PreferenceContent.randomIntegers(count, seed: 1)
            // UserDefaults.set on Linux slows down as the suite grows (~0.5 ms per set at 10,000 keys),
            // so the big size runs fewer rounds and skips the warm-up.
            let rounds = count >= 10_000 ? context.scaled(full: 3, quick: 1) : context.scaled(full: 5, quick: 2)
            let warmUp = count < 10_000
            var commits = 0
            let subject = try Side.subject(on: target) {
                try context.harness.measureRounds(rounds: rounds, warmUp: warmUp, operations: count) {
                    let (store, counting) = try target.openCounting(in: try context.makeDirectory("bulk"))
                    let clock = ContinuousClock()
                    let start = clock.now
                    for index in 0..<count { store.set(values[index], forKey: keys[index]) }
                    try store.flush()
                    let elapsed = clock.now - start
                    commits = counting.commits
                    return elapsed
                }
            }
            let baseline = try context.shared("bulk-write-userdefaults-\(count)") {
                .measured(
                    try context.harness.measureRounds(rounds: rounds, warmUp: warmUp, operations: count) {
                        try TemporaryDefaults.with { defaults in
                            let clock = ContinuousClock()
                            let start = clock.now
                            for index in 0..<count { defaults.set(values[index], forKey: keys[index]) }
                            defaults.synchronize()
                            return clock.now - start
                        }
                    })
            }
            var outcome = ScenarioOutcome(
                subject: subject,
                baselines: [
                    "userdefaults": baseline,
                    "raw-sqlite": try RawSQLiteBaseline.bulkWrite(
                        keys: keys, values: values, rounds: rounds, warmUp: warmUp, context),
                ]
            )
            if subject.figure != nil {
                outcome.notes.append("\(count) writes + flush() reached the backend as \(commits) commit(s)")
            }
            return outcome
        }
    }

    static func read(count: Int, on target: StoreUnderTest) -> Scenario {
        Scenario(
            name: "bulk.read.\(label(count)).\(target.name)", group: "bulk",
            measures: "Reading back \(count) integer keys from a \(target.name) store; per read.",
            subject: "store.value(forKey:as: Int.self) ×\(count)",
            baselines: [
                Baseline("userdefaults", "UserDefaults.integer(forKey:) ×\(count)"),
                Baseline("raw-sqlite", "raw prepared SELECT ×\(count)"),
            ],
            requires: target.requires
        ) { context in
            let keys = PreferenceContent.keys(count)
            let values = PreferenceContent.randomIntegers(count, seed: 2)
            let expected = values.reduce(0, &+)
            let subject = try Side.subject(on: target) {
                let store = try target.open(in: try context.makeDirectory("bulk-read"))
                for index in 0..<count { store.set(values[index], forKey: keys[index]) }
                try store.flush()
                var sum = 0
                let figure = context.harness.measureRounds(operations: count) {
                    let clock = ContinuousClock()
                    let start = clock.now
                    sum = 0
                    for key in keys { sum &+= store.value(forKey: key, as: Int.self) ?? 0 }
                    return clock.now - start
                }
                guard sum == expected else { throw BenchmarkError.unexpected("bulk read sum \(sum) ≠ \(expected)") }
                return figure
            }
            let baseline = try context.shared("bulk-read-userdefaults-\(count)") {
                let fixture = try context.makeDirectory("bulk-read-fixture").appendingPathComponent("defaults.plist")
                try PreferenceContent.writeIntegerPlist(keys: keys, values: values, to: fixture)
                return .measured(
                    try TemporaryDefaults.with(preloadedFrom: fixture) { defaults in
                        var sum = 0
                        let figure = context.harness.measureRounds(operations: count) {
                            let clock = ContinuousClock()
                            let start = clock.now
                            sum = 0
                            for key in keys { sum &+= defaults.integer(forKey: key) }
                            return clock.now - start
                        }
                        guard sum == expected else { throw BenchmarkError.unexpected("UserDefaults sum \(sum) ≠ \(expected)") }
                        return figure
                    })
            }
            return ScenarioOutcome(
                subject: subject,
                baselines: [
                    "userdefaults": baseline, "raw-sqlite": try RawSQLiteBaseline.bulkRead(keys: keys, values: values, context),
                ]
            )
        }
    }
}
