import Foundation
import StoredKit

/// kill -9 on a PostgreSQL client: the `write-loop` child of ``KillScenario`` writes to a fresh
/// namespace and acknowledges each durable write; the parent kills it at a random moment and
/// reads the namespace from a new store. The server rolls back what the killed client had not
/// committed, so every acknowledged write must be there and the two keys of one write agree.
enum PostgresKillScenario {
    static func run(trials: Int, server: TortureServer, durabilities: [String]) throws -> Bool {
        var failed = false
        for durability in durabilities {
            let line = try runTrials(trials, server: server, durability: durability)
            line.print()
            failed = failed || line.failed
        }
        return !failed
    }

    private static func runTrials(_ trials: Int, server: TortureServer, durability: String) throws -> FigureLine {
        var lost = 0
        var torn = 0
        var errors = 0
        var acknowledgedTotal = 0
        let run = UUID().uuidString.prefix(8)
        for trial in 0..<trials {
            let namespace = "torture-kill-\(run)-\(durability)-\(trial)"
            let child = try ChildProcess([
                "write-loop", TortureTarget.postgres(url: server.url, namespace: namespace), durability,
            ])
            // One trial in eight dies while connecting or loading, the others while writing.
            if trial % 8 == 0 {
                usleep(UInt32.random(in: 0...60_000))
            } else {
                guard child.readLines(timeout: .seconds(60), until: { $0 == "ready" }) else {
                    throw TortureError("the writer did not start: \(child.lines)")
                }
                child.readLines(timeout: .milliseconds(Int.random(in: 0...80)))
            }
            child.killHard()
            let acknowledged = child.lines.compactMap { Int($0) }.max() ?? 0
            acknowledgedTotal += acknowledged
            do {
                let store = try PreferenceStore(.postgres(url: server.url, namespace: namespace))
                let stored = store.value(forKey: "n", as: Int.self) ?? 0
                let payload = store.value(forKey: "payload", as: String.self)
                if stored < acknowledged || stored > acknowledged + 1 {
                    lost += 1
                    complain("postgres \(durability) trial \(trial): stored \(stored), acknowledged \(acknowledged)")
                }
                let matches = payload == WriteLoop.payload(stored) || (stored <= 1 && payload == nil)
                if !matches && payload != WriteLoop.payload(stored - 1) {
                    torn += 1
                    complain("postgres \(durability) trial \(trial): n \(stored) with payload of another write")
                }
                store.set(trial, forKey: "reopened")
                try store.flush()
            } catch {
                errors += 1
                complain("postgres \(durability) trial \(trial): reopen failed: \(error)")
            }
        }
        var line = FigureLine("kill-9 postgres \(durability)")
        line.info("\(trials) trials (\(acknowledgedTotal) acknowledged writes)")
        line.mustBeZero(lost, "acknowledged writes lost")
        line.mustBeZero(torn, "torn commits")
        line.mustBeZero(errors, "reopen errors")
        return line
    }
}
