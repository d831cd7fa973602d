import Foundation
import StoredKit

// stored-bench: StoredKit against the baselines a user would otherwise write, measured in one run.

/// The command line, parsed.
struct Options {
    var quick = false
    var filters: [String] = []
    var jsonPath: String?
    var list = false
    var help = false
    /// Set when this process is a child started by the benchmark itself (hidden from `--help`).
    var child: [String]?

    static let usage = """
        Usage: swift run -c release stored-bench [options]

          --quick         a smoke run (< 60 s): fewer rounds and smaller counts
          --filter WORD   run only scenarios whose name or group contains WORD (repeatable);
                          "allocations" runs only the allocation budgets
          --json FILE     also write every figure, the machine and the toolchain to FILE
          --list          list the scenarios (name, group, what is measured, goal) and exit
          --help          show this help and exit

        Ratios say how many times better StoredKit is than the baseline measured in the same run.
        """

    struct UsageError: Error {
        let message: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var remaining = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                throw UsageError(message: "\(flag) needs a value")
            }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": options.quick = true
            case "--filter": options.filters.append(try value(for: argument))
            case "--json": options.jsonPath = try value(for: argument)
            case "--list": options.list = true
            case "--help", "-h": options.help = true
            case "--child":
                guard !remaining.isEmpty else { throw UsageError(message: "--child needs a job name") }
                options.child = Array(remaining)
                return options
            default: throw UsageError(message: "unknown argument '\(argument)'")
            }
        }
        return options
    }
}

func runChild(_ arguments: [String]) -> Int32 {
    do {
        switch arguments.first {
        case "memory-storedkit": try MemoryScenarios.storedKitChild(Array(arguments.dropFirst()))
        case "memory-userdefaults": try MemoryScenarios.userDefaultsChild(Array(arguments.dropFirst()))
        case "contention": try ContentionScenarios.child(Array(arguments.dropFirst()))
        case "notify-writer": try NotificationScenarios.writerChild(Array(arguments.dropFirst()))
        case "forced-edit-writer": try LayerNotificationScenarios.writerChild(Array(arguments.dropFirst()))
        case "open-once": try OpenScenarios.openOnceChild(Array(arguments.dropFirst()))
        case "postgres-notify-writer": try PostgresScenarios.notifyWriterChild(Array(arguments.dropFirst()))
        case "postgres-stamped-notify-writer": try PostgresScenarios.stampedNotifyWriterChild(Array(arguments.dropFirst()))
        case "postgres-raw-notify-writer": try PostgresScenarios.rawNotifyWriterChild(Array(arguments.dropFirst()))
        default: throw BenchmarkError.unexpected("unknown child job '\(arguments.joined(separator: " "))'")
        }
        return 0
    } catch {
        FileHandle.standardError.write(Data("stored-bench child: \(error)\n".utf8))
        return 1
    }
}

func listScenarios() {
    var table = TextTable(["scenario", "group", "status", "goal", "measures"])
    for scenario in Catalog.all {
        let goals = scenario.baselines.compactMap { baseline in baseline.goal.map { "\($0.statement) vs \(baseline.id)" } }
        let status = scenario.pendingReason == nil ? (scenario.fullRunOnly ? "ready (full run)" : "ready") : "pending"
        table.add([scenario.name, scenario.group, status, goals.joined(separator: "; "), scenario.measures])
    }
    print(table.render())
}

func runBenchmarks(_ options: Options) -> Int32 {
    let scenarios = Catalog.all.filter { $0.matches(options.filters) }
    guard !scenarios.isEmpty || !AllocationBudgets.selected(by: options.filters).isEmpty else {
        FileHandle.standardError.write(Data("stored-bench: no scenario matches \(options.filters); see --list\n".utf8))
        return 2
    }
    let machine = Machine.current()
    print("stored-bench \(options.quick ? "--quick" : "(full run)"): \(scenarios.count) scenarios")
    print("machine: \(machine.summary)")
    if Machine.isDebugBuild {
        print("warning: debug build; the figures mean little. Run `swift run -c release stored-bench`.")
    }
    print("")
    let context: RunContext
    do {
        context = try RunContext(quick: options.quick)
    } catch {
        FileHandle.standardError.write(Data("stored-bench: cannot create a temporary directory: \(error)\n".utf8))
        return 1
    }
    defer { context.cleanUp() }
    let startedAt = Date()
    let clock = ContinuousClock()
    let start = clock.now
    let records = BenchmarkRunner(context: context).run(scenarios)
    let seconds = (clock.now - start).seconds
    ConsoleReport.printSummary(records)
    ConsoleReport.printDetails(records)
    var overBudget: [String] = []
    if AllocationBudgets.isActive {
        do {
            let allocations = try AllocationBudgets.measure(filters: options.filters)
            if !allocations.isEmpty { AllocationBudgets.printTable(allocations) }
            overBudget = allocations.filter { !$0.isWithinBudget }.map(\.check.name)
        } catch {
            FileHandle.standardError.write(Data("stored-bench: allocation counts failed: \(error)\n".utf8))
            overBudget = ["allocation counts"]
        }
    } else {
        print("\nHeap allocation counts: unavailable (malloc is not interposed in this build)")
    }
    let failed = records.filter { $0.status == .failed }
    print(
        String(
            format: "\nfinished in %.1f s; %d measured, %d pending, %d skipped, %d failed", seconds,
            records.filter { $0.status == .measured }.count, records.filter { $0.status == .pending }.count,
            records.filter { $0.status == .skipped }.count, failed.count))
    if let jsonPath = options.jsonPath {
        let report = RunReport(
            mode: options.quick ? "quick" : "full", machine: machine, startedAt: startedAt, seconds: seconds,
            scenarios: records)
        do {
            try report.write(to: URL(fileURLWithPath: jsonPath))
            print("wrote \(jsonPath)")
        } catch {
            FileHandle.standardError.write(Data("stored-bench: cannot write \(jsonPath): \(error)\n".utf8))
            return 1
        }
    }
    if !overBudget.isEmpty {
        print("OVER the allocation budget: \(overBudget.joined(separator: ", "))")
    }
    return failed.isEmpty && overBudget.isEmpty ? 0 : 1
}

// SIGINT and SIGTERM end it (and its children) through StoredKit's exit sequence: 130, 143.
TerminationSignals.endThroughExitSequence()
let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("stored-bench: \(error.message)\n\n\(Options.usage)\n".utf8))
    exit(2)
}
if let child = options.child {
    exit(runChild(child))
} else if options.help {
    print(Options.usage)
} else if options.list {
    listScenarios()
} else if !Isolation.isIsolated {
    exit(Isolation.runIsolated())
} else {
    exit(runBenchmarks(options))
}
