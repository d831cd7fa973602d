import Foundation
import StoredKit

/// Several processes on one file: P × M atomic `update` increments of one key, P processes
/// each writing M keys of their own (a flush after each), and M/10 rounds of P processes
/// creating one new file at the same moment, one key each. Nothing may be lost, no open may fail.
enum ContentionScenario {
    static func run(processes: Int, count: Int, kinds: [StoreKind]) throws -> Bool {
        var failed = false
        for kind in kinds {
            for mode in ["increment", "distinct-keys"] {
                let line = try runOnce(processes: processes, count: count, kind: kind, mode: mode)
                line.print()
                failed = failed || line.failed
            }
            let line = try runCreationRounds(max(count / 10, 1), processes: processes, kind: kind)
            line.print()
            failed = failed || line.failed
        }
        return !failed
    }

    /// Regression: SQLite openers racing to create a file once refused it as "not a StoredKit database".
    private static func runCreationRounds(_ rounds: Int, processes: Int, kind: StoreKind) throws -> FigureLine {
        var failedProcesses = 0
        var lost = 0
        let directory = try ScratchDirectory("creation")
        let path = directory.file(kind.fileName)
        for round in 0..<rounds {
            try directory.clear()
            let children = try (0..<processes).map { index in try ChildProcess(["distinct-keys", path, String(index), "1"]) }
            for child in children where child.finish() != .exited(0) || child.lines.last != "done 1 0" {
                failedProcesses += 1
                complain("\(kind) creation round \(round): an opener failed after \(child.lines.suffix(3))")
            }
            let store = try PreferenceStore(fileAt: URL(fileURLWithPath: path), corruption: .fail)
            lost += (0..<processes).filter { store.value(forKey: "p\($0).1", as: Int.self) != 1 }.count
        }
        var line = FigureLine("contention \(kind) creation")
        line.info("\(rounds) rounds × \(processes) processes opening one new file")
        line.mustBeZero(failedProcesses, "failed opens")
        line.mustBeZero(lost, "lost writes")
        return line
    }

    private static func runOnce(processes: Int, count: Int, kind: StoreKind, mode: String) throws -> FigureLine {
        let directory = try ScratchDirectory("contention")
        let path = directory.file(kind.fileName)
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
                complain("\(kind) \(mode): a writer ended with \(ending) after \(child.lines.suffix(3))")
                continue
            }
            acknowledged += Int(report[1]) ?? 0
            refused += Int(report[2]) ?? 0
        }
        let elapsed = ContinuousClock.now - start
        let store = try PreferenceStore(fileAt: URL(fileURLWithPath: path), corruption: .fail)
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
        var line = FigureLine("contention \(kind) \(mode == "increment" ? "update" : "distinct keys")")
        line.info("\(processes) processes × \(count) \(mode == "increment" ? "increments of one key" : "keys each")")
        line.info("\(found) of \(expected) present")
        line.mustBeZero(max(expected - found, 0), "lost updates")
        line.mustBeZero(max(found - expected, 0), "extra updates")
        line.mustBeZero(crashed, "failed processes")
        line.mustBeZero(refused, mode == "increment" ? "updates refused (busy)" : "flushes refused (busy)")
        line.info(String(format: "%.1f s", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
        return line
    }

    /// The child side: `increment PATH INDEX COUNT` and `distinct-keys PATH INDEX COUNT`; ends
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
