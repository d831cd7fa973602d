import Foundation
import StoredKit
import StoredKitTestSupport

/// `set` with the default deferred durability, amortized over a burst that ends with `flush()`, so
/// the commit the store would do in the background is paid for inside the measurement.
enum DeferredWriteScenarios {
    /// The value types written.
    enum ValueType: String, CaseIterable {
        case int, string, codable
    }

    static var all: [Scenario] {
        StoreUnderTest.all.flatMap { target in ValueType.allCases.map { scenario($0, on: target) } }
    }

    static func scenario(_ type: ValueType, on target: StoreUnderTest) -> Scenario {
        // The ratio goals are for the file stores (issues 3 and 4; Codable values issue 19); the in-memory store is shown for reference.
        let goal: Goal? =
            switch target {
            case .memory: nil
            case .file where type == .codable: .faster(6, source: "issue 19")
            case .file(let kind): .faster(20, source: kind == .sqlite ? "issue 4" : "issue 3")
            }
        return Scenario(
            name: "write.deferred.\(type.rawValue).\(target.name)", group: "write, deferred",
            measures: "N changing \(type.rawValue) writes then flush(), divided by N (\(target.name) store).",
            subject: "store.set(\(type.rawValue)) + flush() / N",
            baselines: [Baseline("userdefaults", "UserDefaults.set + synchronize() / N", goal: goal)],
            requires: target.requires
        ) { context in
            let count = context.scaled(full: 2_000, quick: 300)
            let subject = try Side.subject(on: target) {
                let store = try target.open(in: try context.makeDirectory("write-deferred"))
                return try measureStore(type, store: store, count: count, context)
            }
            let baseline = try context.shared("userdefaults-set-\(type.rawValue)") {
                .measured(try measureDefaults(type, count: count, context))
            }
            return ScenarioOutcome(subject: subject, baselines: ["userdefaults": baseline])
        }
    }

    /// Two Codable values, written in turn so every write changes the stored value.
    private static let codableValues = [SidebarCustomization.twentyTabs(revision: 1), .twentyTabs(revision: 2)]
    private static let strings = (0..<64).map { "string value number \($0)" }

    private static func measureStore(_ type: ValueType, store: PreferenceStore, count: Int, _ context: RunContext) throws
        -> Figure
    {
        var next = 0
        return try context.harness.measureRounds(operations: count) {
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<count {
                next += 1
                switch type {
                case .int: store.set(next, forKey: "value")
                case .string: store.set(strings[next & 63], forKey: "value")
                case .codable: store.set(codableValues[next & 1], forKey: "value")
                }
            }
            try store.flush()
            return clock.now - start
        }
    }

    private static func measureDefaults(_ type: ValueType, count: Int, _ context: RunContext) throws -> Figure {
        try TemporaryDefaults.with { defaults in
            var next = 0
            return try context.harness.measureRounds(operations: count) {
                let clock = ContinuousClock()
                let start = clock.now
                for _ in 0..<count {
                    next += 1
                    switch type {
                    case .int: defaults.set(next, forKey: "value")
                    case .string: defaults.set(strings[next & 63], forKey: "value")
                    case .codable:
                        // What an AppStorage user writes for a Codable value: JSON in a string.
                        let json = try JSONEncoder().encode(codableValues[next & 1])
                        defaults.set(String(decoding: json, as: UTF8.self), forKey: "value")
                    }
                }
                defaults.synchronize()
                return clock.now - start
            }
        }
    }
}
