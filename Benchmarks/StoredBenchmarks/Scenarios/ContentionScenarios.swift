import Foundation
import StoredKit

/// Several processes incrementing one key of one file at the same time: throughput, and a check
/// that no increment was lost.
enum ContentionScenarios {
    static let processCounts = [2, 4]
    static let counter = StoredKey<Int>("counter", default: 0)

    static var all: [Scenario] {
        [FileStoreKind.plist, .sqlite].flatMap { kind in processCounts.map { scenario(kind, processes: $0) } }
    }

    static func scenario(_ kind: FileStoreKind, processes: Int) -> Scenario {
        Scenario(
            name: "contention.\(processes)p.\(kind.rawValue)", group: "contention",
            measures:
                "\(processes) processes × N update { $0 += 1 } on one key of one \(kind.rawValue) file; increments/s, final count checked.",
            subject: "store.update(.counter) { $0 += 1 }",
            requires: kind
        ) { context in
            let increments = context.scaled(full: 200, quick: 25)
            var notes: [String] = []
            let subject = try Side.subject(on: .file(kind)) {
                let directory = try context.makeDirectory("contention")
                do {
                    let store = try kind.openStore(in: directory)
                    store[counter] = 0
                    try store.flush()
                }
                let (seconds, finalCount) = try run(kind, in: directory, processes: processes, increments: increments)
                let expected = processes * increments
                guard finalCount == expected else {
                    throw BenchmarkError.unexpected(
                        "lost updates: final count \(finalCount), expected \(processes) × \(increments) = \(expected)")
                }
                notes.append("final count \(finalCount) = \(processes) × \(increments), as expected")
                return Figure(kind: .rate, value: Double(expected) / seconds)
            }
            return ScenarioOutcome(subject: subject, notes: notes)
        }
    }

    /// Starts the children on one file, releases them together and returns the wall time until the
    /// last one finished, and the count they left.
    static func run(_ kind: FileStoreKind, in directory: URL, processes: Int, increments: Int) throws
        -> (seconds: Double, finalCount: Int)
    {
        var children: [ChildProcess] = []
        do {
            for _ in 0..<processes {
                children.append(try ChildProcess(["contention", kind.rawValue, directory.path, "\(increments)"]))
            }
            for child in children { try child.expect("ready") }
            let clock = ContinuousClock()
            let start = clock.now
            for child in children { child.send("go") }
            for child in children { try child.waitForExit() }
            let seconds = (clock.now - start).seconds
            return (seconds, try kind.openStore(in: directory)[counter])
        } catch {
            for child in children { child.terminate() }
            throw error
        }
    }

    /// `--child contention <kind> <directory> <increments>`
    static func child(_ arguments: [String]) throws {
        guard arguments.count == 3, let kind = FileStoreKind(rawValue: arguments[0]), let increments = Int(arguments[2]) else {
            throw BenchmarkError.unexpected("usage: --child contention <kind> <directory> <increments>")
        }
        let store = try kind.openStore(in: URL(fileURLWithPath: arguments[1], isDirectory: true))
        ChildSide.say("ready")
        try ChildSide.waitForGo()
        for _ in 0..<increments { try store.update(counter) { $0 += 1 } }
        try store.flush()
        ChildSide.say("done")
    }
}
