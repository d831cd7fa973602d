import Foundation

/// Everything one run measured: what `--json` writes and what the tables are printed from.
///
/// ```swift
/// let report = RunReport(mode: "full", machine: .current(), startedAt: Date(), seconds: 0, scenarios: [])
/// try report.write(to: URL(fileURLWithPath: "bench.json"))
/// ```
struct RunReport: Codable {
    var tool = "stored-bench"
    var formatVersion = 1
    var mode: String
    var machine: Machine
    var startedAt: Date
    var seconds: Double
    var scenarios: [ScenarioRecord]

    func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}

/// One scenario's result, with every figure.
struct ScenarioRecord: Codable {
    enum Status: String, Codable {
        case measured, pending, failed, skipped
    }

    var name: String
    var group: String
    var measures: String
    var subject: String
    var status: Status
    var figure: Figure?
    /// Why there is no StoredKit figure (pending, skipped or failed).
    var reason: String?
    var notes: [String]
    var comparisons: [ComparisonRecord]
    var seconds: Double
}

/// StoredKit against one baseline.
struct ComparisonRecord: Codable {
    var baseline: String
    var figure: Figure?
    var reason: String?
    /// How many times better StoredKit is (>1: StoredKit wins); set when both sides were measured.
    var ratio: Double?
    var goal: Goal?
    var goalMet: Bool?

    var verdict: String {
        guard let goal else { return "" }
        guard let goalMet else { return "goal \(goal.statement): not measurable yet" }
        return "goal \(goal.statement) (\(goal.source)): " + (goalMet ? "met" : "NOT met")
    }
}

/// Prints results: a line per scenario as it finishes, then the ratio summary and the full table.
enum ConsoleReport {
    static func printScenario(_ record: ScenarioRecord) {
        let subject = record.figure.map(format) ?? "\(record.status.rawValue): \(record.reason ?? "")"
        print("▸ \(record.name) — \(record.subject): \(subject)  [\(String(format: "%.1f", record.seconds)) s]")
        for comparison in record.comparisons {
            let baseline = comparison.figure.map(format) ?? "pending: \(comparison.reason ?? "")"
            var line = "    vs \(comparison.baseline): \(baseline)"
            if let ratio = comparison.ratio { line += "  → \(formatRatio(ratio))" }
            if !comparison.verdict.isEmpty { line += "  \(comparison.verdict)" }
            print(line)
        }
        for note in record.notes { print("    note: \(note)") }
        fflush(nil)  // every C stream: progress shows at once even when the output is piped
    }

    /// Ratios first: one row per comparison that has a ratio or a goal; the rest is only counted.
    static func printSummary(_ records: [ScenarioRecord]) {
        var table = TextTable(["ratio", "goal", "verdict", "scenario", "baseline"])
        var left = 0
        for record in records {
            for comparison in record.comparisons {
                guard comparison.ratio != nil || comparison.goal != nil else {
                    left += 1
                    continue
                }
                let verdict =
                    switch comparison.goalMet {
                    case nil: comparison.goal == nil ? "—" : "pending"
                    case true?: "met"
                    case false?: "NOT met"
                    }
                table.add([
                    comparison.ratio.map(formatRatio) ?? "—",
                    comparison.goal.map { "\($0.statement) (\($0.source))" } ?? "",
                    verdict, record.name, comparison.baseline,
                ])
            }
        }
        print("\nRatios (how many times better StoredKit is than the baseline measured in the same run):")
        print(table.render())
        if left > 0 { print("(\(left) more comparisons without a goal are not measurable yet; see the table below)") }
    }

    /// Every figure: scenario | StoredKit | baseline | ratio.
    static func printDetails(_ records: [ScenarioRecord]) {
        var table = TextTable(["scenario", "StoredKit", "baseline", "ratio"])
        for record in records {
            let subject = record.figure.map(format) ?? record.status.rawValue
            let comparisons = record.comparisons.isEmpty ? [nil] : record.comparisons.map { Optional($0) }
            for (index, comparison) in comparisons.enumerated() {
                let baseline = comparison.map { ($0.figure.map(format) ?? "pending") + "  " + $0.baseline } ?? ""
                table.add([
                    index == 0 ? record.name : "",
                    index == 0 ? subject : "",
                    baseline,
                    comparison?.ratio.map(formatRatio) ?? "—",
                ])
            }
        }
        print("\nAll figures (median over rounds ± half the interquartile range; p50 · p99 for latencies):")
        print(table.render())
    }

    /// A figure the way a person reads it: "3.10 ns ±1%", "p50 1.20 ms · p99 3.40 ms", "45.2 MiB".
    static func format(_ figure: Figure) -> String {
        let spread = figure.samples > 1 ? String(format: " ±%.0f%%", figure.spread * 100) : ""
        switch figure.kind {
        case .time:
            if let p50 = figure.p50, let p99 = figure.p99 {
                return "p50 \(formatSeconds(p50)) · p99 \(formatSeconds(p99))"
            }
            return formatSeconds(figure.median) + spread
        case .bytes: return String(format: "%.1f MiB", figure.median / 1_048_576) + spread
        case .rate: return formatRate(figure.median) + spread
        case .count: return String(format: "%.0f", figure.median)
        }
    }
}

/// A plain-text table with columns padded to their widest cell.
struct TextTable {
    private let header: [String]
    private var rows: [[String]] = []

    init(_ header: [String]) { self.header = header }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { cell, width in cell.padding(toLength: width, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").replacing(/\s+$/, with: "")
        }
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}

func formatSeconds(_ seconds: Double) -> String {
    switch seconds {
    case ..<1e-6: String(format: "%.2f ns", seconds * 1e9)
    case ..<1e-3: String(format: "%.2f µs", seconds * 1e6)
    case ..<1: String(format: "%.2f ms", seconds * 1e3)
    default: String(format: "%.2f s", seconds)
    }
}

func formatRate(_ perSecond: Double) -> String {
    perSecond >= 1e6
        ? String(format: "%.2f M ops/s", perSecond / 1e6)
        : perSecond >= 1e3 ? String(format: "%.1f k ops/s", perSecond / 1e3) : String(format: "%.0f ops/s", perSecond)
}

func formatRatio(_ ratio: Double) -> String {
    switch ratio {
    case 100...: String(format: "%.0f×", ratio)
    case 10..<100: String(format: "%.1f×", ratio)
    default: String(format: "%.2f×", ratio)
    }
}
