import Foundation
import StoredKit

/// Several processes on one store: P × M atomic `update` increments of one key; on a file also
/// P processes each writing M keys of their own (a flush after each), and M/10 rounds of P
/// processes creating one new file at the same moment, one key each. Nothing may be lost, no
/// open may fail.
enum ContentionScenario {
    static func run(processes: Int, count: Int, backends: [TortureBackend]) throws -> Bool {
        // A server is one shared store, made once: distinct keys and creation races are a file's.
        let runs = backends.flatMap { backend in
            (backend.isFile ? ["increment", "distinct-keys", "creation"] : ["increment"]).map { (backend, $0) }
        }
        return try runEach(runs) { backend, mode in
            let target = try TrialTarget(backend, label: mode == "creation" ? "creation" : "contention")
            if mode == "creation" { return try runCreationRounds(max(count / 10, 1), processes: processes, target: target) }
            return try runOnce(processes: processes, count: count, target: target, mode: mode)
        }
    }

    /// Regression: SQLite openers racing to create a file once refused it as "not a StoredKit database".
    private static func runCreationRounds(_ rounds: Int, processes: Int, target: TrialTarget) throws -> FigureLine {
        var failedProcesses = 0
        var lost = 0
        for round in 0..<rounds {
            let path = try target.fresh(trial: round)
            let children = try (0..<processes).map { index in try ChildProcess(["distinct-keys", path, String(index), "1"]) }
            for child in children where child.finish() != .exited(0) || child.lines.last != "done 1 0" {
                failedProcesses += 1
                complain("\(target.name) creation round \(round): an opener failed after \(child.lines.suffix(3))")
            }
            let store = try target.reopen(path)
            lost += (0..<processes).filter { store.value(forKey: "p\($0).1", as: Int.self) != 1 }.count
        }
        var line = FigureLine("contention \(target.name) creation")
        line.info("\(rounds) rounds × \(processes) processes opening one new file")
        line.mustBeZero(failedProcesses, "failed opens")
        line.mustBeZero(lost, "lost writes")
        return line
    }

    private static func runOnce(processes: Int, count: Int, target: TrialTarget, mode: String) throws -> FigureLine {
        let path = try target.fresh(trial: 0)
        let start = ContinuousClock.now
        let children = try (0..<processes).map { index in
            try ChildProcess([mode, path, String(index), String(count)])
        }
        var crashed = 0
        var acknowledged = 0
        var refused = 0
        for child in children {
            let ending = child.finish()
            // "done <calls that succeeded> <calls that threw>"
            let report = child.lines.last?.split(separator: " ") ?? []
            guard ending == .exited(0), report.count == 3, report[0] == "done" else {
                crashed += 1
                complain("\(target.name) \(mode): a writer ended with \(ending) after \(child.lines.suffix(3))")
                continue
            }
            acknowledged += Int(report[1]) ?? 0
            refused += Int(report[2]) ?? 0
        }
        let elapsed = ContinuousClock.now - start
        let store = try target.reopen(path)
        // An update that threw never happened; a flush that threw left its write pending for the next one.
        let expected = mode == "increment" ? acknowledged : processes * count
        let found: Int
        if mode == "increment" {
            found = store.value(forKey: "counter", as: Int.self) ?? 0
        } else {
            found = (0..<processes).reduce(0) { total, process in
                total + (1...max(count, 1)).filter { store.value(forKey: "p\(process).\($0)", as: Int.self) == $0 }.count
            }
        }
        var line = FigureLine("contention \(target.name) \(mode == "increment" ? "update" : "distinct keys")")
        line.info("\(processes) processes × \(count) \(mode == "increment" ? "increments of one key" : "keys each")")
        line.info("\(found) of \(expected) present")
        line.mustBeZero(max(expected - found, 0), "lost updates")
        line.mustBeZero(max(found - expected, 0), "extra updates")
        line.mustBeZero(crashed, "failed processes")
        // A file refuses a call when its lock stays busy; a server's refusal has any cause.
        let refusal = (mode == "increment" ? "updates refused" : "flushes refused") + (target.isFile ? " (busy)" : "")
        line.mustBeZero(refused, refusal)
        line.elapsed(elapsed)
        return line
    }

    /// The child side: `increment TARGET INDEX COUNT` and `distinct-keys TARGET INDEX COUNT`; ends
    /// with `done <calls that succeeded> <calls that threw>`.
    static func child(mode: String, path: String, index: Int, count: Int) throws {
        let store = try TortureTarget(path).open()
        var succeeded = 0
        var refused = 0
        let counter = StoredKey<Int>("counter", default: 0)
        for key in 1...max(count, 1) {
            do {
                if mode == "increment" {
                    try store.update(counter) { $0 += 1 }
                } else {
                    store.set(key, forKey: "p\(index).\(key)")
                    try store.flush()
                }
                succeeded += 1
            } catch {
                if refused == 0 { complain("\(mode) \(index): \(error)") }
                refused += 1
            }
        }
        if mode != "increment" { try store.flush() }
        say("done \(succeeded) \(refused)")
    }
}
