import Foundation

/// The hidden `--child` commands: the side of each scenario that runs in a separate process.
enum ChildCommand {
    static func run(_ arguments: [String]) throws {
        func argument(_ index: Int) throws -> String {
            guard index < arguments.count else { throw TortureError("child \(arguments): missing argument \(index)") }
            return arguments[index]
        }
        func number(_ index: Int) throws -> Int {
            guard let value = Int(try argument(index)) else {
                throw TortureError("child \(arguments): argument \(index) is not a number")
            }
            return value
        }
        switch try argument(0) {
        case "write-loop":
            try WriteLoop.run(path: try argument(1), durability: try argument(2))
        case "increment", "distinct-keys":
            try ContentionScenario.child(mode: arguments[0], path: try argument(1), index: try number(2), count: try number(3))
        case "corruption-cases":
            try CorruptionScenario.child(
                samplePath: try argument(1), step: try number(2), flips: try number(3),
                seed: UInt64(try argument(4)) ?? 0, start: try number(5))
        case "fault-write":
            FaultScenario.child(path: try argument(1), fileSizeLimit: try number(2), seed: UInt64(try argument(3)) ?? 0)
        case "restart-writer":
            try ServerRestartScenario.writer(target: try argument(1), key: try argument(2))
        case "restart-observer":
            try ServerRestartScenario.observer(target: try argument(1), keys: Array(arguments.dropFirst(2)))
        case "exit-at":
            ExitScenario.child(url: try argument(1), namespace: try argument(2), moment: try argument(3), delay: try number(4))
        case "replica-soak-writer":
            try ReplicaSoakScenario.writer(
                url: try argument(1), namespace: try argument(2), file: try argument(3), seed: UInt64(try argument(4)) ?? 0,
                interval: try number(5), control: try argument(6), tag: try argument(7))
        case "migrate":
            try MigrationCrashScenario.child(path: try argument(1))
        default:
            throw TortureError("unknown child command \(arguments)")
        }
    }
}
