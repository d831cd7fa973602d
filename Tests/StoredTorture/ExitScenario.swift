import Foundation
import StoredKit
import StoredKitPostgres
import StoredKitTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Many short processes that end at a random moment of a PostgreSQL store's life: while it opens,
/// during a write, right after one, while its connection is being replaced, or on SIGTERM; against
/// a live server (plain TCP and TLS with `sslmode=require`), a stopped one (nothing listens) and a
/// silent one (a proxy that accepts and never answers). A process fails when a signal ended it
/// (the SIGABRT of Kerberos' or OpenSSL's exit-time teardown racing a connection), when it exited
/// with another status than its own (7; 143 for SIGTERM), or when it took more than 10 s.
///
/// ```sh
/// stored-torture exit 1000   # "exit: 1000 processes, 0 failed (...)"
/// ```
enum ExitScenario {
    static let moments = ["open", "write", "after-write", "reconnect", "signal"]
    static let ownStatus: Int32 = 7
    static let limit: Duration = .seconds(10)

    static func run(trials: Int, seed: UInt64, server: TortureServer) throws -> Bool {
        let tls = try ThrowawayPostgresServer(label: "stored-torture-tls", tls: true)
        defer { tls.stop() }
        let silent = try SilentServerProxy(to: server.url)
        try silent.silence()
        defer { silent.stop() }
        let targets = [
            ("tcp", server.url), ("tls", tls.url + "?sslmode=require"),
            ("stopped", "postgresql://postgres@127.0.0.1:\(closedLocalPort())/postgres"), ("silent", silent.url),
        ]
        var generator = SeededGenerator(seed: seed)
        var failures: [String] = []
        var longest: Duration = .zero
        var running: [(child: ChildProcess, started: ContinuousClock.Instant, label: String, expected: Int32)] = []
        func reap(_ entry: (child: ChildProcess, started: ContinuousClock.Instant, label: String, expected: Int32)) {
            let ending = entry.child.finish(timeout: limit + .seconds(5))
            let took = ContinuousClock.now - entry.started
            longest = max(longest, took)
            if ending != .exited(entry.expected) || took > limit {
                failures.append("\(entry.label): \(ending) after \(took) \(entry.child.lines.suffix(2))")
            }
        }
        for trial in 0..<trials {
            let (name, url) = targets[Int.random(in: 0..<targets.count, using: &generator)]
            let moment = moments[Int.random(in: 0..<moments.count, using: &generator)]
            let delay = Int.random(in: 0...300_000, using: &generator)  // microseconds
            let expected = moment == "signal" ? TerminationSignals.terminatedStatus : ownStatus
            let child = try ChildProcess(["exit-at", url, "exit-\(seed)-\(trial)", moment, "\(delay)"])
            let started = ContinuousClock.now
            if moment == "signal" {
                usleep(UInt32(delay))
                kill(child.processIdentifier, SIGTERM)
            }
            running.append((child, started, "\(name) \(moment) \(delay) µs", expected))
            if running.count >= 4 { reap(running.removeFirst()) }
        }
        for entry in running { reap(entry) }
        say("exit: \(trials) processes, \(failures.count) failed (longest exit \(longest))")
        for failure in failures.prefix(10) { complain("exit: \(failure)") }
        return failures.isEmpty
    }

    /// The child: does `moment`'s work on the main thread while another thread exits with status 7
    /// after `delay` µs (on "signal" the parent's SIGTERM ends it instead).
    static func child(url: String, namespace: String, moment: String, delay: Int) -> Never {
        // One thread exits: two threads calling exit at once is undefined in glibc (2.36) whatever
        // the libraries do. "after-write" exits from the main thread, "signal" by the parent's SIGTERM.
        if moment != "signal" && moment != "after-write" {
            let exiter = Thread {
                usleep(UInt32(delay))
                exit(ownStatus)
            }
            exiter.start()
        }
        // Its own application name, so "reconnect" cuts this process's connections and nobody else's.
        let name = "storedexit\(getpid())"
        let mine = url + (url.contains("?") ? "&" : "?") + "application_name=\(name)"
        let open = { (durability: Durability) in
            try? PreferenceStore(.postgres(url: mine, namespace: namespace, timeout: .seconds(2)), durability: durability)
        }
        switch moment {
        case "open":
            while true { _ = open(.deferred) }
        case "after-write":
            let store = open(.deferred)
            usleep(UInt32(delay / 10))
            store?.set(1, forKey: "k")
            exit(ownStatus)  // the write is pending: the exit sequence flushes it
        case "reconnect":
            let store = open(.deferred)
            // Cut this process's connections (the listener's among them) and keep writing while they come back.
            if store != nil {
                _ = try? ExternalCommand.psql(
                    url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'")
            }
            var index = 0
            while true {
                index += 1
                store?.set(index, forKey: "k")
                usleep(1000)
            }
        default:  // "write", "signal"
            let store = open(.immediate)
            var index = 0
            while true {
                index += 1
                store?.set(index, forKey: "k")
                if store == nil { usleep(10_000) }
            }
        }
    }
}
