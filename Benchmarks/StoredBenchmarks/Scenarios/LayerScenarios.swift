import Foundation
import StoredKit

/// Reads through a store's layers: a key found only in the lowest of five layers costs at most
/// 1.5× the same read on a store without layers (issue 30).
enum LayerScenarios {
    static var all: [Scenario] { [valueForKey, firstStoredReadAfterChange] }

    /// Forced, arguments, environment and the user's values hold other keys; `volume` is in the defaults.
    static func fiveLayerStore() throws -> PreferenceStore {
        let others = Dictionary(uniqueKeysWithValues: (0..<20).map { ("other\($0)", StoredValue.int(Int64($0))) })
        return try PreferenceStore(
            MemoryBackend(values: others),
            layers: [
                .forced(.memory(others, name: "policy")),
                .arguments(["bench"] + (0..<20).flatMap { ["-other\($0)", "\($0)"] }),
                .environment(
                    prefix: "BENCH_",
                    variables: Dictionary(uniqueKeysWithValues: (0..<20).map { ("BENCH_OTHER\($0)", "\($0)") })),
                .defaults(.memory(others.merging(["volume": .double(0.5)]) { $1 }, name: "site")),
            ])
    }

    /// The same keys, `volume` among the user's values, no layers.
    static func plainStore() -> PreferenceStore {
        var values = Dictionary(uniqueKeysWithValues: (0..<20).map { ("other\($0)", StoredValue.int(Int64($0))) })
        values["volume"] = .double(0.5)
        return PreferenceStore.inMemory(values)
    }

    static var valueForKey: Scenario {
        Scenario(
            name: "layers.read.value-for-key", group: "layers",
            measures: "value(forKey:as: Double.self) of a key found only in the lowest of five layers.",
            subject: "store.value(forKey: \"volume\", as: Double.self), 5 layers",
            baselines: [
                Baseline("no-layers", "the same read on a store without layers", goal: .costAtMost(1.5, source: "issue 30"))
            ]
        ) { context in
            let layered = try fiveLayerStore()
            let plain = plainStore()
            guard layered.value(forKey: "volume", as: Double.self) == 0.5, plain.value(forKey: "volume", as: Double.self) == 0.5
            else { throw BenchmarkError.unexpected("the layered read did not find the defaults' value") }
            let subject = context.harness.measure { count in
                for _ in 0..<count { blackHole(layered.value(forKey: "volume", as: Double.self)) }
            }
            let baseline = context.harness.measure { count in
                for _ in 0..<count { blackHole(plain.value(forKey: "volume", as: Double.self)) }
            }
            return ScenarioOutcome(subject: .measured(subject), baselines: ["no-layers": .measured(baseline)])
        }
    }

    static var firstStoredReadAfterChange: Scenario {
        Scenario(
            name: "layers.read.stored-after-change", group: "layers",
            measures: "A change below the key (a registered default: the lowest layer) and the first @Stored<Double> "
                + "read after it, the value in the lowest of five layers; both sides make the same change.",
            subject: "register(defaults:) + @Stored read, 5 layers",
            baselines: [
                Baseline(
                    "no-layers", "the same change and read on a store without layers",
                    goal: .costAtMost(1.5, source: "issue 30"))
            ]
        ) { context in
            let layered = Stored(wrappedValue: 0.0, "volume", store: try fiveLayerStore())
            let plain = Stored(wrappedValue: 0.0, "volume", store: plainStore())
            let change: [String: any Storable] = ["volume": 0.25]
            guard layered.wrappedValue == 0.5, plain.wrappedValue == 0.5 else {
                throw BenchmarkError.unexpected("the @Stored read did not find the value")
            }
            let subject = context.harness.measure { count in
                for _ in 0..<count {
                    layered.store.register(defaults: change)
                    blackHole(layered.wrappedValue)
                }
            }
            let baseline = context.harness.measure { count in
                for _ in 0..<count {
                    plain.store.register(defaults: change)
                    blackHole(plain.wrappedValue)
                }
            }
            return ScenarioOutcome(subject: .measured(subject), baselines: ["no-layers": .measured(baseline)])
        }
    }
}
