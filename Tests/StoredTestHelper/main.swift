import Foundation
import StoredKit
import StoredKitPostgres
import Synchronization

// A helper process for the multi-process tests: each command opens a real store file,
// does one thing, and reports on stdout line by line (unbuffered, so a parent that kills us
// knows exactly what was acknowledged).

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("stored-test-helper: " + message + "\n").utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
// print-time: this process's wall clock (seconds since 1970), and no store: what a test that
// skews a child's clock (SkewedClock) compares with its own.
if arguments == ["print-time"] {
    say("\(Date().timeIntervalSince1970)")
    exit(0)
}
// replica-set|replica-dump|replica-random URL NAMESPACE FILE ...: an offline replica (ReplicaCommands.swift).
if arguments.first?.hasPrefix("replica-") == true { runReplicaCommand(arguments) }
guard arguments.count >= 2 else {
    fail("usage: stored-test-helper increment|set|observe|write-loop|migrate PATH ... | replica-... | print-time")
}
let url = URL(fileURLWithPath: arguments[1])
let durability: Durability = ProcessInfo.processInfo.environment["STORED_DURABILITY"] == "immediate" ? .immediate : .deferred

/// For `migrate PATH MARKERDIR`: one migration that appends a line to MARKERDIR/marker, so a
/// test can count how many processes ran it, and is slow enough for two processes to overlap.
/// Prints "ready" and waits for MARKERDIR/go before opening, so several helpers open together.
func markerMigrations() -> [Migration] {
    guard arguments[0] == "migrate" else { return [] }
    guard arguments.count == 3 else { fail("migrate PATH MARKERDIR") }
    let directory = URL(fileURLWithPath: arguments[2])
    let marker = directory.appendingPathComponent("marker").path
    say("ready")
    let go = directory.appendingPathComponent("go").path
    for _ in 0..<6000 where !FileManager.default.fileExists(atPath: go) { usleep(5_000) }
    return [
        Migration(version: 1, "mark") { m in
            let descriptor = open(marker, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
            let line = "migrated by \(getpid())\n"
            _ = line.withCString { write(descriptor, $0, strlen($0)) }
            close(descriptor)
            usleep(200_000)
            m.set("done", forKey: "migrated")
        }
    ]
}

/// STORED_TIMEOUT: the PostgreSQL backend's timeout in seconds (5 by default).
let postgresTimeout = Duration.seconds(Int(ProcessInfo.processInfo.environment["STORED_TIMEOUT"] ?? "") ?? 5)

/// The stores of set-many-and-exit, for its exit report (an atexit handler captures nothing).
let exitStores = Mutex<[PreferenceStore]>([])

/// set-many-and-exit's report, registered before any store opens so that it runs after their exit flush.
if arguments[0] == "set-many-and-exit" {
    atexit {
        let events = exitStores.withLock { $0 }.flatMap(\.recentEvents).compactMap { event -> String? in
            guard case .commitFailed(let error) = event else { return nil }
            return error.description
        }
        // A failure told at once quotes the first failure's reason: tell them apart by "unreachable since".
        let atOnce = events.filter { $0.contains("unreachable since") }.count
        let waited = events.filter {
            !$0.contains("unreachable since") && ($0.contains("did not answer") || $0.contains("timeout expired"))
        }.count
        say("waited=\(waited) atOnce=\(atOnce)")
        // The exit as this process timed it, in milliseconds: the test's own threads may go
        // unscheduled for seconds on a loaded machine, so its clock cannot hold the exit to a bound.
        let sinceGo = exitGoSeen.withLock { $0 }.map { ContinuousClock.now - $0 } ?? .zero
        if let timings = ExitSequence.timings {
            say(
                "exit flushMs=\(milliseconds(timings.flush)) hooksMs=\(milliseconds(timings.hooks)) "
                    + "stragglersMs=\(milliseconds(timings.stragglers)) totalMs=\(milliseconds(timings.total)) "
                    + "sinceGoMs=\(milliseconds(sinceGo))")
        }
    }
}

/// When set-many-and-exit saw its go file, for its exit report.
let exitGoSeen = Mutex<ContinuousClock.Instant?>(nil)

/// `duration` in whole milliseconds.
func milliseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return seconds * 1000 + attoseconds / 1_000_000_000_000_000
}

/// PATH may also be a PostgreSQL URL (`postgresql:...`); STORED_NAMESPACE then names the namespace.
func openStore() throws -> PreferenceStore {
    let target = arguments[1]
    if target == "memory" { return try PreferenceStore(MemoryBackend(), durability: durability) }
    if ProcessInfo.processInfo.environment["STORED_REPLICA"] == "1" {  // PATH is an offline replica's file
        return try PreferenceStore(ReplicaFile(at: url), migrations: markerMigrations(), durability: durability)
    }
    guard target.hasPrefix("postgresql:") || target.hasPrefix("postgres:") else {
        return try PreferenceStore(fileAt: url, durability: durability, migrations: markerMigrations())
    }
    let namespace = ProcessInfo.processInfo.environment["STORED_NAMESPACE"] ?? "default"
    return try PreferenceStore(
        .postgres(url: target, namespace: namespace, timeout: postgresTimeout), migrations: markerMigrations(),
        durability: durability)
}

do {
    let store = try openStore()
    switch arguments[0] {
    case "increment":
        // increment PATH COUNT: COUNT atomic read-modify-writes of "counter".
        let count = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0
        let key = StoredKey<Int>("counter", default: 0)
        for _ in 0..<count { try store.update(key) { $0 += 1 } }
        say("done")
    case "set":
        // set PATH KEY VALUE: one string value, flushed.
        guard arguments.count == 4 else { fail("set PATH KEY VALUE") }
        store.set(arguments[3], forKey: arguments[2])
        try store.flush()
        say("done")
    case "set-and-exit":
        // set-and-exit PATH KEY VALUE: one deferred write, then a normal exit with no flush call:
        // the store's exit hook must save it.
        guard arguments.count == 4 else { fail("set-and-exit PATH KEY VALUE") }
        store.set(arguments[3], forKey: arguments[2])
        say("set")
        exit(0)
    case "observe":
        // observe PATH KEY COUNT: prints "ready", then one line per change, exits after COUNT.
        guard arguments.count == 4, let count = Int(arguments[3]) else { fail("observe PATH KEY COUNT") }
        let done = DispatchSemaphore(value: 0)
        let seen = LockedCounter()
        let token = store.observe(arguments[2]) { change in
            say("\(change.key)=\(change.newValue.map(\.description) ?? "nil") \(change.origin)")
            if seen.increment() == count { done.signal() }
        }
        say("ready")
        let finished = done.wait(timeout: .now() + 30) == .success
        token.cancel()
        exit(finished ? 0 : 1)
    case "observe-keys":
        // observe-keys PATH KEY,KEY,... COUNT: like observe, for several keys.
        guard arguments.count == 4, let count = Int(arguments[3]) else { fail("observe-keys PATH KEYS COUNT") }
        let done = DispatchSemaphore(value: 0)
        let seen = LockedCounter()
        let tokens = arguments[2].split(separator: ",").map { key in
            store.observe(String(key)) { change in
                say("\(change.key)=\(change.newValue.map(\.description) ?? "nil") \(change.origin)")
                if seen.increment() == count { done.signal() }
            }
        }
        say("ready")
        // Generous: the test around it may stop and start a server on a loaded machine first.
        let finished = done.wait(timeout: .now() + 300) == .success
        tokens.forEach { $0.cancel() }
        exit(finished ? 0 : 1)
    case "set-many-and-exit":
        // set-many-and-exit URL COUNT GODIR: opens COUNT more namespaces (STORED_NAMESPACE-1...),
        // prints "open", waits for GODIR/go, writes one key in each and exits without a flush. At
        // exit, after the stores' own exit flush, it prints how many failures waited for the
        // server ("waited=N") and how many were told at once that it is down ("atOnce=M").
        guard arguments.count == 4, let count = Int(arguments[2]) else { fail("set-many-and-exit URL COUNT GODIR") }
        let namespace = ProcessInfo.processInfo.environment["STORED_NAMESPACE"] ?? "default"
        var stores = [store]
        for index in 1..<count {
            stores.append(
                try PreferenceStore(.postgres(url: arguments[1], namespace: "\(namespace)-\(index)", timeout: postgresTimeout)))
        }
        exitStores.withLock { $0 = stores }
        say("open")
        let go = URL(fileURLWithPath: arguments[3]).appendingPathComponent("go").path
        for _ in 0..<6000 where !FileManager.default.fileExists(atPath: go) { usleep(5_000) }
        exitGoSeen.withLock { $0 = .now }
        for (index, store) in stores.enumerated() { store.set(index, forKey: "k") }
        exit(0)
    case "write-loop":
        // write-loop PATH [keys]: writes 1, 2, 3 ... until killed, printing each acknowledged value:
        // to "n", or with `keys` to k1, k2, k3 ... (each write its own key, as an outbox test needs).
        let eachItsOwnKey = arguments.count > 2 && arguments[2] == "keys"
        var value = 0
        while true {
            value += 1
            store.set(value, forKey: eachItsOwnKey ? "k\(value)" : "n")
            if durability == .deferred { try store.flush() }
            say("\(value)")
        }
    case "nested":
        // nested PATH FORM: a call on the store from inside a transaction body (NestedCalls.swift).
        guard arguments.count == 3 else { fail("nested PATH FORM") }
        try runNestedCall(arguments[2], on: store)
    case "migrate":
        // migrate PATH MARKERDIR: opens with the marker migration and reports the schema version.
        say("schemaVersion=\(store.schemaVersion)")
    default:
        fail("unknown command '\(arguments[0])'")
    }
} catch {
    fail("\(error)")
}

/// Counts from any thread.
final class LockedCounter: Sendable {
    private let value = Mutex(0)
    func increment() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
