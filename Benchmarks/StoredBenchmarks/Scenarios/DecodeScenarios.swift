import Foundation
import StoredKit
import StoredKitTestSupport

/// The first read after a change, when the cached value is stale and must be decoded.
enum DecodeScenarios {
    static var all: [Scenario] { [afterChange, decoder] }

    static var afterChange: Scenario {
        Scenario(
            name: "decode.after-change", group: "decode",
            measures: "A @Stored read right after the value changed (cache miss: one decode), timed per read.",
            subject: "@Stored<TabCustomization> read after a write",
            baselines: [Baseline("json", "JSONDecoder().decode of the same value", goal: .faster(5, source: "issue 2"))]
        ) { context in
            let values = [SidebarCustomization.twentyTabs(revision: 1), .twentyTabs(revision: 2)]
            let stored = try values.map { try StoredValueEncoder().encode($0) }
            let json = try values.map { try JSONEncoder().encode($0) }
            let store = PreferenceStore.inMemory()
            let settings = HotReadScenarios.Settings(store: store)
            let clock = ContinuousClock()
            let count = context.scaled(full: 3_000, quick: 400)
            var turn = 0
            let subject = context.harness.measureLatencies(count: count) {
                turn += 1
                store.setStoredValue(stored[turn & 1], forKey: "customization")
                let start = clock.now
                blackHole(settings.customization)
                return clock.now - start
            }
            guard settings.customization == values[turn & 1] else {
                throw BenchmarkError.unexpected("the read after a change returned a stale or wrong value")
            }
            let baseline = try context.harness.measureLatencies(count: count) {
                turn += 1
                let start = clock.now
                blackHole(try JSONDecoder().decode(SidebarCustomization.self, from: json[turn & 1]))
                return clock.now - start
            }
            return ScenarioOutcome(subject: .measured(subject), baselines: ["json": .measured(baseline)])
        }
    }

    static var decoder: Scenario {
        Scenario(
            name: "decode.stored-value-decoder", group: "decode",
            measures: "Decoding the 20-tab value from a prepared StoredValue, against JSONDecoder from prepared JSON Data.",
            subject: "StoredValueDecoder().decode",
            baselines: [Baseline("json", "JSONDecoder().decode", goal: .faster(5, source: "issue 2"))]
        ) { context in
            let value = SidebarCustomization.twentyTabs(revision: 1)
            let stored = try StoredValueEncoder().encode(value)
            let json = try JSONEncoder().encode(value)
            guard try StoredValueDecoder().decode(SidebarCustomization.self, from: stored) == value else {
                throw BenchmarkError.unexpected("StoredValueDecoder did not round-trip the 20-tab value")
            }
            let subject = try context.harness.measure { count in
                for _ in 0..<count { blackHole(try StoredValueDecoder().decode(SidebarCustomization.self, from: stored)) }
            }
            let baseline = try context.harness.measure { count in
                for _ in 0..<count { blackHole(try JSONDecoder().decode(SidebarCustomization.self, from: json)) }
            }
            return ScenarioOutcome(subject: .measured(subject), baselines: ["json": .measured(baseline)])
        }
    }
}
