import Foundation

/// One row of the benchmark: what StoredKit does, the baselines it is compared with in the same
/// run, the goal each comparison must reach, and the code that measures it all.
///
/// ```swift
/// Scenario(
///     name: "hot-read.int", group: "hot read",
///     measures: "Reading an unchanged Int",
///     subject: "@Stored<Int> read",
///     baselines: [Baseline("userdefaults", "UserDefaults.integer(forKey:)", goal: .faster(50, source: "issue 2"))]
/// ) { context in ... }
/// ```
struct Scenario {
    /// Unique, dotted, stable across versions (tracking tools key on it).
    let name: String
    let group: String
    /// One sentence: what is timed, in which conditions.
    let measures: String
    /// The StoredKit side, as a user would write it.
    let subject: String
    let baselines: [Baseline]
    /// A file store this scenario cannot run without (it shows as pending until that backend is wired).
    let requires: FileStoreKind?
    /// Too slow for `--quick` (listed there as skipped).
    let fullRunOnly: Bool
    let run: (RunContext) throws -> ScenarioOutcome

    init(
        name: String, group: String, measures: String, subject: String, baselines: [Baseline] = [],
        requires: FileStoreKind? = nil, fullRunOnly: Bool = false,
        run: @escaping (RunContext) throws -> ScenarioOutcome
    ) {
        self.name = name
        self.group = group
        self.measures = measures
        self.subject = subject
        self.baselines = baselines
        self.requires = requires
        self.fullRunOnly = fullRunOnly
        self.run = run
    }

    /// Why the StoredKit side cannot run yet, if it cannot.
    var pendingReason: String? {
        guard let requires, requires.makeBackend == nil else { return nil }
        return "needs the \(requires.rawValue) backend (wire it in StoreKinds.swift)"
    }

    func matches(_ filters: [String]) -> Bool {
        filters.isEmpty
            || filters.contains { name.localizedCaseInsensitiveContains($0) || group.localizedCaseInsensitiveContains($0) }
    }
}

/// A comparison point measured in the same run as the StoredKit side.
struct Baseline {
    /// Short key the scenario's outcome uses for this baseline's figure.
    let id: String
    /// What the baseline does, as its user would write it.
    let label: String
    let goal: Goal?

    init(_ id: String, _ label: String, goal: Goal? = nil) {
        self.id = id
        self.label = label
        self.goal = goal
    }
}

/// A target ratio from the issues: StoredKit must be at least `minimumRatio` times better.
struct Goal: Codable, Sendable {
    let minimumRatio: Double
    /// How the issue says it, e.g. "≥ 50× faster".
    let statement: String
    /// Where the goal comes from.
    let source: String

    /// StoredKit at least `factor` times faster (or smaller) than the baseline.
    static func faster(_ factor: Double, source: String) -> Goal {
        Goal(minimumRatio: factor, statement: "≥ \(factor.formatted())× better", source: source)
    }

    /// StoredKit costs at most `factor` times the baseline (e.g. a durable write near the fsync floor).
    static func costAtMost(_ factor: Double, source: String) -> Goal {
        Goal(minimumRatio: 1 / factor, statement: "cost ≤ \(factor.formatted())×", source: source)
    }

    func isMet(by ratio: Double) -> Bool { ratio >= minimumRatio * 0.999_999 }
}

/// One side of a comparison: a figure, or why there is none yet.
enum Side {
    case measured(Figure)
    case pending(String)

    var figure: Figure? {
        if case .measured(let figure) = self { return figure }
        return nil
    }
}

extension Side {
    /// Measures the StoredKit side on `target`, or says why it cannot run yet.
    static func subject(on target: StoreUnderTest, _ measure: () throws -> Figure) rethrows -> Side {
        if let kind = target.requires, kind.makeBackend == nil {
            return .pending("needs the \(kind.rawValue) backend (wire it in StoreKinds.swift)")
        }
        return .measured(try measure())
    }
}

/// What a scenario's run produced.
struct ScenarioOutcome {
    var subject: Side
    /// Keyed by ``Baseline/id``.
    var baselines: [String: Side] = [:]
    /// Extra facts worth printing (counts checked, increments over an empty process, ...).
    var notes: [String] = []
}
