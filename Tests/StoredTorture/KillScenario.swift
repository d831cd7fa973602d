import Foundation
import StoredKit

/// kill -9: a child writes in a loop and acknowledges each durable write on its stdout; the
/// parent kills it at a random moment and reopens the store (a file with `corruption: .fail`, or
/// the trial's namespace on a server, which rolls back what the killed client had not committed).
///
/// Every acknowledged write must be there (`n` ≥ the last acknowledged value), the two keys of one
/// commit must agree, the store must open, and, for a file, once the reopened store wrote, no
/// temporary file of the killed writer may remain.
enum KillScenario {
    static func run(trials: Int, backends: [TortureBackend], durabilities: [String]) throws -> Bool {
        try runEach(backends.flatMap { backend in durabilities.map { (backend, $0) } }) { backend, durability in
            try runTrials(trials, target: TrialTarget(backend, label: "kill"), durability: durability)
        }
    }

    private static func runTrials(_ trials: Int, target: TrialTarget, durability: String) throws -> FigureLine {
        var corrupt = 0
        var lost = 0
        var torn = 0
        var errors = 0
        var leftovers = 0
        var acknowledgedTotal = 0
        let label = "\(target.name) \(durability)"
        for trial in 0..<trials {
            let argument = try target.fresh(trial: trial)
            let child = try ChildProcess(["write-loop", argument, durability])
            // One trial in eight dies while opening, creating or connecting, the others while writing.
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
                let store = try target.reopen(argument)
                let stored = store.value(forKey: "n", as: Int.self) ?? 0
                let payload = store.value(forKey: "payload", as: String.self)
                if stored < acknowledged || stored > acknowledged + 1 {
                    lost += 1
                    complain("\(label) trial \(trial): stored \(stored), acknowledged \(acknowledged)")
                }
                // n is set before payload, and a commit (an immediate write, or a deferred flush
                // that fires in between) may take n alone.
                let matches = payload == WriteLoop.payload(stored) || (stored <= 1 && payload == nil)
                let trailing = payload == WriteLoop.payload(stored - 1)
                if !matches && !trailing {
                    torn += 1
                    complain("\(label) trial \(trial): n \(stored) with payload of another write")
                }
                store.set(trial, forKey: "reopened")
                try store.flush()
            } catch StoreError.corruptFile(_, let reason, _) where target.isFile {
                corrupt += 1
                complain("\(label) trial \(trial): corrupt after kill: \(reason)")
            } catch {
                errors += 1
                complain("\(label) trial \(trial): reopen failed: \(error)")
            }
            let left = try target.leftovers()
            if !left.isEmpty {
                leftovers += left.count
                complain("\(label) trial \(trial): left behind \(left)")
            }
        }
        var line = FigureLine("kill-9 \(label)")
        line.info("\(trials) trials (\(acknowledgedTotal) acknowledged writes)")
        // A server has no file to damage and no temporary files to leave: its line omits those figures.
        if target.isFile { line.mustBeZero(corrupt, "corrupt") }
        line.mustBeZero(lost, "acknowledged writes lost")
        line.mustBeZero(torn, "torn commits")
        line.mustBeZero(errors, "reopen errors")
        if target.isFile { line.mustBeZero(leftovers, "leftover temp files") }
        return line
    }
}

/// The child side: `write-loop TARGET deferred|immediate` (a path or a ``TortureTarget`` URL).
enum WriteLoop {
    /// A payload whose length varies, so the file grows and shrinks from one write to the next.
    static func payload(_ value: Int) -> String {
        "\(value):" + String(repeating: "abcdefghij", count: 20 + abs(value * 37) % 300)
    }

    static func run(path: String, durability: String) throws -> Never {
        let store = try TortureTarget(path).open(durability: durability == "immediate" ? .immediate : .deferred)
        say("ready")
        var value = 0
        while true {
            value += 1
            store.set(value, forKey: "n")
            store.set(payload(value), forKey: "payload")
            if durability == "immediate" {
                // An immediate write that failed is reported, not thrown: acknowledge only clean ones.
                if store.recentEvents.contains(where: { if case .commitFailed = $0 { true } else { false } }) {
                    throw TortureError("an immediate write failed: \(store.recentEvents)")
                }
            } else {
                try store.flush()
            }
            say("\(value)")
        }
    }
}
