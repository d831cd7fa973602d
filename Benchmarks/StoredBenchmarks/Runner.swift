import Foundation

/// Runs scenarios one after the other and turns their outcomes into records with ratios and
/// verdicts. A failing scenario is recorded as failed; the others still run.
///
/// ```swift
/// let records = BenchmarkRunner(context: context).run(Catalog.all)
/// ```
struct BenchmarkRunner {
    let context: RunContext

    func run(_ scenarios: [Scenario]) -> [ScenarioRecord] {
        scenarios.map { scenario in
            let record = run(scenario)
            ConsoleReport.printScenario(record)
            return record
        }
    }

    private func run(_ scenario: Scenario) -> ScenarioRecord {
        var record = ScenarioRecord(
            name: scenario.name, group: scenario.group, measures: scenario.measures, subject: scenario.subject,
            status: .measured, figure: nil, reason: nil, notes: [], comparisons: [], seconds: 0
        )
        if context.quick, scenario.fullRunOnly {
            record.status = .skipped
            record.reason = "full run only (too slow for --quick)"
            record.comparisons = scenario.baselines.map { compare(record.figure, with: $0, .pending("skipped")) }
            return record
        }
        let clock = ContinuousClock()
        let start = clock.now
        let outcome: ScenarioOutcome
        do {
            defer { record.seconds = (clock.now - start).seconds }
            outcome = try scenario.run(context)
        } catch {
            record.status = .failed
            record.reason = "\(error)"
            record.comparisons = scenario.baselines.map { compare(record.figure, with: $0, .pending("failed")) }
            return record
        }
        record.notes = outcome.notes
        switch outcome.subject {
        case .measured(let figure): record.figure = figure
        case .pending(let reason):
            record.status = .pending
            record.reason = reason
        }
        record.comparisons = scenario.baselines.map { baseline in
            compare(record.figure, with: baseline, outcome.baselines[baseline.id] ?? .pending("not measured"))
        }
        return record
    }

    private func compare(_ subject: Figure?, with baseline: Baseline, _ side: Side) -> ComparisonRecord {
        var comparison = ComparisonRecord(baseline: baseline.label, figure: side.figure, goal: baseline.goal)
        if case .pending(let reason) = side { comparison.reason = reason }
        if let subject, let figure = side.figure { comparison.ratio = subject.ratio(against: figure) }
        if let goal = baseline.goal, let ratio = comparison.ratio { comparison.goalMet = goal.isMet(by: ratio) }
        return comparison
    }
}

/// Every scenario, in the order they run and are printed.
enum Catalog {
    static var all: [Scenario] {
        HotReadScenarios.all + DecodeScenarios.all + EncodeScenarios.all + DeferredWriteScenarios.all + DurableWriteScenarios.all
            + BulkScenarios.all + OpenScenarios.all + FlushScenarios.all + ContentionScenarios.all
            + NotificationScenarios.all + MemoryScenarios.all + PostgresScenarios.all + LayerScenarios.all
            + LayerNotificationScenarios.all + ReplicaScenarios.all + LargeStoreScenarios.all
    }
}
