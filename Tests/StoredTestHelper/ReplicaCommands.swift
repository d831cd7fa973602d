import Foundation
import StoredKit
import StoredKitPostgres
import Synchronization

// The commands on an offline replica (`.postgres(url:namespace:replica:)`), for the tests of
// issue 39 that need real processes: writes made offline and sent by a later process, a process
// killed inside an upload, and replicas converging under cuts, restarts and kill -9. Each takes
// the server's URL, the namespace and the replica's file, and reports on stdout line by line:
//
//   replica-set URL NAMESPACE FILE [KEY=VALUE | --remove KEY]... [--immediate] [--sync SECONDS]
//       [--kill-before-commit | --kill-before-acknowledge]
//   replica-dump URL NAMESPACE FILE [--sync SECONDS]
//   replica-random URL NAMESPACE FILE SEED STOPFILE [TAG]

/// Runs `replica-set`, `replica-dump` or `replica-random`, then exits.
func runReplicaCommand(_ arguments: [String]) -> Never {
    guard arguments.count >= 4 else { fail("\(arguments[0]) URL NAMESPACE FILE ...") }
    let (server, namespace, file) = (arguments[1], arguments[2], URL(fileURLWithPath: arguments[3]))
    let rest = Array(arguments.dropFirst(4))
    do {
        switch arguments[0] {
        case "replica-set": try replicaSet(server, namespace, file, rest)
        case "replica-dump": try replicaDump(server, namespace, file, rest)
        case "replica-random": try replicaRandom(server, namespace, file, rest)
        default: fail("unknown command '\(arguments[0])'")
        }
    } catch {
        fail("\(error)")
    }
    exit(0)
}

/// The options of the replica commands, each followed by its value or not.
struct ReplicaOptions {
    var writes: [(key: String, value: String?)] = []
    var immediate = false
    var sync: Double?
    var kill: String?

    init(_ arguments: [String]) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--immediate": immediate = true
            case "--kill-before-commit", "--kill-before-acknowledge": kill = argument
            case "--sync":
                guard let seconds = remaining.popFirst().flatMap(Double.init) else { fail("--sync SECONDS") }
                sync = seconds
            case "--remove":
                guard let key = remaining.popFirst() else { fail("--remove KEY") }
                writes.append((key, nil))
            default:
                guard let equals = argument.firstIndex(of: "=") else { fail("expected KEY=VALUE, got '\(argument)'") }
                writes.append((String(argument[..<equals]), String(argument[argument.index(after: equals)...])))
            }
        }
    }
}

/// The store on the replica, and a second handle on its file that reads stamps and the outbox as
/// a later process would (the store's own `ReplicaFile` is internal to it).
func openReplica(_ server: String, _ namespace: String, _ file: URL, immediate: Bool) throws -> (
    store: PreferenceStore, probe: ReplicaFile, replicaID: String
) {
    // Short: a cut relay refuses at once, and a halted server should not hold a round for long.
    let store = try PreferenceStore(
        .postgres(url: server, namespace: namespace, replica: file, timeout: .seconds(3)),
        durability: immediate ? .immediate : .deferred)
    let probe = ReplicaFile(at: file, corruption: .fail)
    let replicaID = try probe.currentIdentity().replicaID
    say("replica \(replicaID)")
    return (store, probe, replicaID)
}

/// One line for the write of `key` just made: its stamp as the replica recorded it when the
/// replica's own ("s KEY VALUE MS COUNTER REPLICA"), or "l KEY VALUE" when a later write from
/// elsewhere holds the key (this write lost, at its commit or merged over since).
func reportWrite(_ key: String, _ value: String?, _ probe: ReplicaFile, _ replicaID: String) throws {
    let shown = value ?? "-"
    guard let held = try probe.stamp(of: key), held.replicaID == replicaID else {
        return say("l \(key) \(shown)")
    }
    say("s \(key) \(shown) \(held.stamp.milliseconds) \(held.stamp.counter) \(held.replicaID)")
}

/// replica-set: the writes (stamps reported when immediate), a flush ("flushed"), then a
/// synchronize ("synced pending=N") and what the rounds reported ("event clamped KEY", "event lost KEY"). With a kill option the process dies by SIGKILL inside the
/// upload that follows the flush, at that point of it; it exits 3 when the upload never got there.
func replicaSet(_ server: String, _ namespace: String, _ file: URL, _ arguments: [String]) throws {
    let options = ReplicaOptions(arguments)
    if let kill = options.kill {
        let die: @Sendable () -> Void = {
            say("killing myself \(kill)")
            raise(SIGKILL)
        }
        ReplicaSyncer.testHooks.withLock { hooks in
            if kill == "--kill-before-commit" { hooks.beforeCommit = die } else { hooks.beforeAcknowledge = die }
        }
    }
    let (store, probe, replicaID) = try openReplica(server, namespace, file, immediate: options.immediate)
    for (key, value) in options.writes {
        if let value { store.set(value, forKey: key) } else { store.removeValue(forKey: key) }
        if options.immediate { try reportWrite(key, value, probe, replicaID) }
    }
    try store.flush()
    say("flushed")
    if options.kill != nil {
        _ = synchronize(store, seconds: options.sync ?? 30)
        say("the upload never reached the hook")
        exit(3)
    }
    if let seconds = options.sync { try synchronizeOrFail(store, probe, seconds: seconds) }
    // What the rounds reported ("event …"): a write that lost, a stamp the server clamped.
    for event in store.recentEvents {
        switch event {
        case .stampClamped(let key, _, _): say("event clamped \(key)")
        case .lostToLaterWrite(let key, _): say("event lost \(key)")
        default: break
        }
    }
}

/// replica-dump: (after a synchronize, with --sync) the replica's values as sorted JSON
/// ("values={...}"), their stamps ("stamps={"key":"MS COUNTER REPLICA"}") and its outbox's size
/// ("pending=N").
func replicaDump(_ server: String, _ namespace: String, _ file: URL, _ arguments: [String]) throws {
    let options = ReplicaOptions(arguments)
    let (store, probe, _) = try openReplica(server, namespace, file, immediate: false)
    if let seconds = options.sync { try synchronizeOrFail(store, probe, seconds: seconds) }
    let values = try probe.sqlite.load().values
    var shown: [String: String] = [:]
    var stamps: [String: String] = [:]
    for (key, value) in values {
        if case .string(let text) = value { shown[key] = text } else { shown[key] = "\(value)" }
        if let held = try probe.stamp(of: key) {
            stamps[key] = "\(held.stamp.milliseconds) \(held.stamp.counter) \(held.replicaID)"
        }
    }
    say("values=\(try sortedJSON(shown))")
    say("stamps=\(try sortedJSON(stamps))")
    say("pending=\(try probe.pendingSummary().count)")
}

/// replica-random: immediate writes over the keys k0...k15, a quarter of them removals, chosen
/// by SEED, a few milliseconds apart, until the file STOPFILE exists. Before each it prints
/// "w KEY VALUE" (VALUE "-" for a removal), after it the line of ``reportWrite(_:_:_:_:)``; "done"
/// at the end. Values are TAG-SEED-N, so every write's value is its own.
func replicaRandom(_ server: String, _ namespace: String, _ file: URL, _ arguments: [String]) throws {
    guard arguments.count >= 2, let seed = UInt64(arguments[0]) else {
        fail("replica-random URL NAMESPACE FILE SEED STOPFILE [TAG]")
    }
    let stop = arguments[1]
    let tag = arguments.count > 2 ? arguments[2] : "w"
    let (store, probe, replicaID) = try openReplica(server, namespace, file, immediate: true)
    var random = HelperRandom(seed: seed)
    // Bounded, should the test that was to stop it be gone.
    for number in 0..<100_000 where !FileManager.default.fileExists(atPath: stop) {
        let key = "k\(random.next() % 16)"
        let value: String? = random.next() % 4 == 0 ? nil : "\(tag)-\(seed)-\(number)"
        say("w \(key) \(value ?? "-")")
        if let value { store.set(value, forKey: key) } else { store.removeValue(forKey: key) }
        try reportWrite(key, value, probe, replicaID)
        usleep(useconds_t(random.next() % 30_000))
    }
    try store.flush()
    say("done")
}

/// SplitMix64, as the tests' SeededGenerator (which this target cannot import): the same seed,
/// the same writes.
struct HelperRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// `store.synchronize(timeout:)` from synchronous code: nil when it returned, else its error.
func synchronize(_ store: PreferenceStore, seconds: Double) -> (any Error)? {
    let outcome = Mutex<Result<Void, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Result<Void, any Error>
        do {
            try await store.synchronize(timeout: .milliseconds(Int(seconds * 1000)))
            result = .success(())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
    guard done.wait(timeout: .now() + seconds + 10) == .success else {
        return CocoaError(.userCancelled, userInfo: [NSLocalizedDescriptionKey: "synchronize did not return"])
    }
    if case .failure(let error) = outcome.withLock({ $0 }) { return error }
    return nil
}

/// Synchronizes and prints "synced pending=N", or exits 1 saying why not.
func synchronizeOrFail(_ store: PreferenceStore, _ probe: ReplicaFile, seconds: Double) throws {
    if let error = synchronize(store, seconds: seconds) {
        say("not synchronized: \(error)")
        exit(1)
    }
    say("synced pending=\(try probe.pendingSummary().count)")
}

func sortedJSON(_ object: [String: String]) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
}
