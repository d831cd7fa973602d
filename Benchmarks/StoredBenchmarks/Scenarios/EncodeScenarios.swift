import Foundation
import StoredKit
import StoredKitTestSupport

/// Encoding a Codable value, the cost of every Codable `set`, against `JSONEncoder`.
enum EncodeScenarios {
    static var all: [Scenario] {
        [
            scenario(
                "20-tab", "the 20-tab value (a dictionary of small structs with enums and optionals)",
                value: SidebarCustomization.twentyTabs(revision: 1), goal: 6),
            scenario(
                "settings", "a settings struct (19 scalar, enum, date and optional properties, 6 small structs)",
                value: SettingsFixture.sample(revision: 1), goal: 4),
        ]
    }

    static func scenario<Value: Codable & Equatable>(_ name: String, _ what: String, value: Value, goal: Double) -> Scenario {
        Scenario(
            name: "encode.\(name)", group: "encode",
            measures: "Encoding \(what) into a StoredValue, against JSONEncoder into Data.",
            subject: "StoredValueEncoder().encode",
            baselines: [Baseline("json", "JSONEncoder().encode", goal: .faster(goal, source: "issue 19"))]
        ) { context in
            guard try StoredValueDecoder().decode(Value.self, from: try StoredValueEncoder().encode(value)) == value else {
                throw BenchmarkError.unexpected("StoredValueEncoder did not round-trip the \(name) value")
            }
            let subject = try context.harness.measure { count in
                for _ in 0..<count { blackHole(try StoredValueEncoder().encode(value)) }
            }
            let baseline = try context.harness.measure { count in
                for _ in 0..<count { blackHole(try JSONEncoder().encode(value)) }
            }
            return ScenarioOutcome(subject: .measured(subject), baselines: ["json": .measured(baseline)])
        }
    }
}
