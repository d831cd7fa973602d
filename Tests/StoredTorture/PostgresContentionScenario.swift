import Foundation
import StoredKit

/// P processes × COUNT atomic `update` increments of one key in one namespace (the `increment`
/// child of ``ContentionScenario``), half of them over the Unix socket when the server has one:
/// the counter must be exactly the number of updates that returned.
enum PostgresContentionScenario {
    static func run(processes: Int, count: Int, server: TortureServer) throws -> Bool {
        let namespace = "torture-contention-\(UUID().uuidString.prefix(8))"
        let start = ContinuousClock.now
        let children = try (0..<processes).map { index in
            try ChildProcess([
                "increment", TortureTarget.postgres(url: server.url, namespace: namespace), String(index), String(count),
            ])
        }
        var crashed = 0
        var acknowledged = 0
        var refused = 0
        for child in children {
            let ending = child.finish()
            let report = child.lines.last?.split(separator: " ") ?? []
            guard ending == .exited(0), report.count == 3, report[0] == "done" else {
                crashed += 1
                complain("postgres increment: a writer ended with \(ending) after \(child.lines.suffix(3))")
                continue
            }
            acknowledged += Int(report[1]) ?? 0
            refused += Int(report[2]) ?? 0
        }
        let elapsed = ContinuousClock.now - start
        let found =
            try PreferenceStore(.postgres(url: server.url, namespace: namespace)).value(forKey: "counter", as: Int.self) ?? 0
        var line = FigureLine("contention postgres update")
        line.info("\(processes) processes × \(count) increments of one key")
        line.info("\(found) of \(acknowledged) present")
        line.mustBeZero(max(acknowledged - found, 0), "lost updates")
        line.mustBeZero(max(found - acknowledged, 0), "extra updates")
        line.mustBeZero(crashed, "failed processes")
        line.mustBeZero(refused, "updates refused")
        line.info(String(format: "%.1f s", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
        line.print()
        return !line.failed
    }
}
