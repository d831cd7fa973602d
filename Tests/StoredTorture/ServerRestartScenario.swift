import Foundation
import StoredKit
import StoredKitPostgres

/// The server crashes under running clients: W writer processes (each acknowledging every write
/// the server took, retrying while it is down) and O observer processes watching every writer's
/// key; the server is restarted with `-m immediate` COUNT times, each time once every client
/// made progress. Afterwards no acknowledged write may be missing, every observer must reach
/// every key's final value without ever seeing one go back, and after each restart every
/// client must be back (a new acknowledged write, a new value seen) within a minute.
enum ServerRestartScenario {
    static let writers = 2
    static let observers = 2
    static let patience: Duration = .seconds(60)
    /// The listener's reconnect backoff doubles up to 5 s, ±50 % jitter: a client is back within
    /// 7.5 s of the server plus a reconnect, or it is late.
    static let backoff: Duration = .seconds(10)

    static func run(restarts: Int, server: TortureServer) throws -> Bool {
        let namespace = "torture-restart-\(UUID().uuidString.prefix(8))"
        let target = TortureTarget.postgres(url: server.url, namespace: namespace)
        let keys = (0..<writers).map { "w\($0)" }
        let observing = try (0..<observers).map { _ in try ChildProcess(["restart-observer", target] + keys) }
        for observer in observing where !observer.readLines(timeout: patience, until: { $0 == "ready" }) {
            throw TortureError("an observer did not start: \(observer.lines)")
        }
        let writing = try keys.map { key in try ChildProcess(["restart-writer", target, key]) }
        var notBack = 0
        var late = 0
        var slowest: Duration = .zero
        for round in 0..<restarts {
            // Every client makes progress first, so each restart lands under live traffic.
            let marks = (writing + observing).map { $0.lines.count }
            guard waitAll(writing + observing, { child, index in child.lines.count > marks[index] + 2 }) else {
                throw TortureError("round \(round): clients made no progress before the restart")
            }
            try server.crashAndRestart()
            // What the clients printed until the server was up again happened before the crash.
            for child in writing + observing { child.readLines(timeout: .milliseconds(1)) }
            let before = (writing + observing).map { $0.lines.count }
            let restartedAt = ContinuousClock.now
            var back = Array(repeating: false, count: before.count)
            _ = waitAll(writing + observing) { child, index in
                // A line printed after the restart: a write the new server took, or a value seen from it.
                let isBack = child.lines.count > before[index]
                if isBack, !back[index] {
                    back[index] = true
                    slowest = max(slowest, ContinuousClock.now - restartedAt)
                }
                return isBack
            }
            notBack += back.filter { !$0 }.count
            if ContinuousClock.now - restartedAt > backoff { late += 1 }
        }
        for writer in writing { writer.killHard() }
        let acknowledged = writing.map { writer in writer.lines.compactMap { Int($0) }.max() ?? 0 }
        let check = try PreferenceStore(.postgres(url: server.url, namespace: namespace))
        let stored = keys.map { check.value(forKey: $0, as: Int.self) ?? 0 }
        let lost = zip(stored, acknowledged).filter { $0 < $1 }.count
        // Observers catch up with the final values; a value that goes back is a change seen out of order.
        _ = waitAll(observing) { observer, _ in
            keys.indices.allSatisfy { lastSeen(keys[$0], in: observer.lines) == stored[$0] }
        }
        var missed = 0
        var backwards = 0
        for observer in observing {
            for (index, key) in keys.enumerated() {
                let seen = observer.lines.compactMap { value(of: key, in: $0) }
                if seen.last != stored[index] { missed += 1 }
                backwards += zip(seen, seen.dropFirst()).filter { $0 >= $1 }.count
            }
            observer.killHard()
        }
        var line = FigureLine("server-restart postgres")
        line.info("\(restarts) restarts under \(writers) writers and \(observers) observers")
        line.info("\(acknowledged.reduce(0, +)) acknowledged writes")
        line.mustBeZero(lost, "acknowledged writes lost")
        line.mustBeZero(missed, "final values missed by an observer")
        line.mustBeZero(backwards, "changes seen out of order")
        line.mustBeZero(notBack, "clients not back within 60 s")
        line.mustBeZero(late, "restarts with a client back after more than 10 s")
        line.info(String(format: "slowest client back %.2f s after the server", seconds(slowest)))
        line.print()
        return !line.failed
    }

    /// Reads from every child in turn until `done` holds for all of them or ``patience`` passes.
    private static func waitAll(_ children: [ChildProcess], _ done: (ChildProcess, Int) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline {
            var all = true
            for (index, child) in children.enumerated() where !done(child, index) {
                all = false
                child.readLines(timeout: .milliseconds(2))
            }
            if all { return true }
        }
        return false
    }

    /// `KEY VALUE` lines of an observer.
    private static func value(of key: String, in line: String) -> Int? {
        let parts = line.split(separator: " ")
        return parts.count == 2 && parts[0] == key ? Int(parts[1]) : nil
    }

    private static func lastSeen(_ key: String, in lines: [String]) -> Int? {
        lines.lazy.reversed().compactMap { value(of: key, in: $0) }.first
    }

    /// The child side, `restart-writer TARGET KEY`: writes 1, 2, 3… to KEY, printing each once a
    /// flush took it; while the server is down the flush fails and is retried.
    static func writer(target: String, key: String) throws -> Never {
        let store = try TortureTarget(target).open()
        var value = 0
        while true {
            value += 1
            store.set(value, forKey: key)
            while (try? store.flush()) == nil { usleep(10_000) }
            say("\(value)")
        }
    }

    /// The child side, `restart-observer TARGET KEY...`: prints `KEY VALUE` for every change it is told of.
    static func observer(target: String, keys: [String]) throws -> Never {
        let store = try TortureTarget(target).open()
        let tokens = keys.map { key in
            store.observe(key) { change in
                if case .int(let value) = change.newValue { say("\(key) \(value)") }
            }
        }
        say("ready")
        while true {
            withExtendedLifetime(tokens) { _ = sleep(60) }
        }
    }
}
