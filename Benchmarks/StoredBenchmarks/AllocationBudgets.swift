import CBenchmarkCounters
import Foundation
import StoredKit
import StoredKitTestSupport

/// A deterministic guard against regressions: heap allocations per operation, counted on the
/// calling thread (wall times on these machines move by a third; allocation counts do not), with
/// the budgets below checked in. A run that exceeds a budget fails, `--quick` included.
/// Instructions per operation are printed beside them where the machine has hardware counters.
///
/// ```swift
/// let results = AllocationBudgets.measure(filters: [])
/// AllocationBudgets.printTable(results)  // "hot-read.int  0 allocations/op  budget 0  within"
/// ```
enum AllocationBudgets {
    /// One operation's budget: at most `maximum` allocations per operation, on average over a
    /// batch (a deferred write may grow a buffer now and then).
    struct Check {
        let name: String
        let maximum: Double
        /// Why the budget is what it is.
        let basis: String
        /// Runs the operation `count` times; prepares untimed state first and returns the batch.
        let prepare: () throws -> (count: Int, run: () throws -> Void)
    }

    struct Result {
        let check: Check
        let allocationsPerOperation: Double
        let instructionsPerOperation: Double?

        var isWithinBudget: Bool { allocationsPerOperation <= check.maximum + 1e-9 }
    }

    /// The budgets. Lower one when a change makes an operation allocate less; raise one only with
    /// a reason in the commit that does it.
    static var checks: [Check] {
        [
            Check(name: "hot-read.int", maximum: 0, basis: "a cached read is an atomic load and a copy") {
                let settings = HotReadScenarios.Settings(store: PreferenceStore.inMemory())
                settings.count = 42
                return (1_000, { for _ in 0..<1_000 { blackHole(settings.count) } })
            },
            Check(name: "hot-read.codable", maximum: 0, basis: "an unchanged Codable value is not decoded again") {
                let settings = HotReadScenarios.Settings(store: PreferenceStore.inMemory())
                settings.customization = .twentyTabs(revision: 1)
                return (1_000, { for _ in 0..<1_000 { blackHole(settings.customization) } })
            },
            Check(name: "write.deferred.int", maximum: 1, basis: "0 measured 2026-12-01 (+ one timer block per flush)") {
                let store = PreferenceStore.inMemory()
                var next = 0
                return (
                    1_000,
                    {
                        for _ in 0..<1_000 {
                            next += 1
                            store.set(next, forKey: "count")
                        }
                    }
                )
            },
            Check(name: "encode.20-tab", maximum: 31, basis: "the count with a pooled session (42 before, 132 before issue 19)") {
                let value = SidebarCustomization.twentyTabs(revision: 1)
                return (100, { for _ in 0..<100 { blackHole(try StoredValueEncoder().encode(value)) } })
            },
            Check(name: "encode.settings", maximum: 8, basis: "the count with a pooled session (20 before)") {
                let value = SettingsFixture.sample(revision: 1)
                return (100, { for _ in 0..<100 { blackHole(try StoredValueEncoder().encode(value)) } })
            },
            Check(name: "decode.20-tab", maximum: 12, basis: "kept containers need no holder object (15 before)") {
                let stored = try StoredValueEncoder().encode(SidebarCustomization.twentyTabs(revision: 1))
                return (
                    100,
                    {
                        for _ in 0..<100 {
                            blackHole(try StoredValueDecoder().decode(SidebarCustomization.self, from: stored))
                        }
                    }
                )
            },
            Check(name: "layers.value-for-key", maximum: 0, basis: "a read through five layers allocates nothing") {
                let store = try LayerScenarios.fiveLayerStore()
                return (1_000, { for _ in 0..<1_000 { blackHole(store.value(forKey: "volume", as: Double.self)) } })
            },
            Check(name: "layers.value-for-key.no-layers", maximum: 0, basis: "the same read without layers") {
                let store = LayerScenarios.plainStore()
                return (1_000, { for _ in 0..<1_000 { blackHole(store.value(forKey: "volume", as: Double.self)) } })
            },
        ]
    }

    /// The checks `--filter` selects: by name, or all of them for "allocations".
    static func selected(by filters: [String]) -> [Check] {
        checks.filter { check in
            filters.isEmpty
                || filters.contains {
                    check.name.localizedCaseInsensitiveContains($0) || "allocations".hasPrefix($0.lowercased())
                }
        }
    }

    /// Whether the counts can be trusted: this executable's malloc is the one everybody calls.
    static var isActive: Bool { allocation_counter_is_active() != 0 }

    /// Counts every check whose name matches `filters` (all of them when empty).
    static func measure(filters: [String]) throws -> [Result] {
        let selected = selected(by: filters)
        let instructions = instruction_counter_open()
        defer { instruction_counter_close(instructions) }
        return try selected.map { check in
            let (count, run) = try check.prepare()
            try run()  // warm-up: caches filled, buffers grown
            let instructionsBefore = instruction_counter_read(instructions)
            allocation_counter_start()
            try run()
            let allocations = allocation_counter_stop()
            let instructionsAfter = instruction_counter_read(instructions)
            let instructionCount =
                instructionsBefore == .max || instructionsAfter == .max
                ? nil : Double(instructionsAfter - instructionsBefore) / Double(count)
            return Result(
                check: check, allocationsPerOperation: Double(allocations) / Double(count),
                instructionsPerOperation: instructionCount)
        }
    }

    static func printTable(_ results: [Result]) {
        var table = TextTable(["operation", "allocations/op", "budget", "verdict", "instructions/op", "budget basis"])
        for result in results {
            table.add([
                result.check.name,
                result.allocationsPerOperation.formatted(.number.precision(.fractionLength(0...2))),
                result.check.maximum.formatted(),
                result.isWithinBudget ? "within" : "OVER BUDGET",
                result.instructionsPerOperation.map { $0.formatted(.number.precision(.fractionLength(0))) } ?? "unavailable",
                result.check.basis,
            ])
        }
        print("\nHeap allocations per operation on the calling thread (budgets in AllocationBudgets.swift):")
        print(table.render())
    }
}
