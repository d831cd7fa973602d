import Foundation
import StoredKit
import StoredKitPostgres
import Synchronization

// `stored sync`: an offline replica's outbox sent and the server's changes taken, from a shell.
extension Command {
    static let sync = Command(
        name: "sync",
        arguments: "URL --replica FILE",
        summary: "Send an offline replica's pending writes and take the server's changes",
        discussion: """
            Opens the replica FILE (an SQLite file an app made with .postgres(url:namespace:replica:))
            as the app does, sends its pending writes to the namespace on URL, reads what others
            changed there since, and prints one line per key: 'sent KEY: VALUE', 'lost KEY: VALUE'
            (a change made later elsewhere holds the key; the replica took it), 'refused KEY: VALUE
            (REASON)' (the server refused it; the key went back to the server's value), 'received
            KEY: VALUE' (another machine's change, now in the replica), then a summary. '(removed)'
            stands for a removal. The namespace is --namespace, else the one the replica mirrors.
            A process that has the replica open may keep running: both send the same outbox, and
            each write is applied once (the server keeps the latest stamp of each key) and leaves
            the outbox only when what was sent is still the key's latest.
            A replica whose tables contradict themselves (see 'stored help check') is refused
            before anything is sent. When the server cannot be reached within --timeout (default
            30 s), the status is 6: nothing was lost, the writes wait in the replica for a later
            sync or the app. A write the server refused makes the status 8; the others are synced.
            """,
        options: [
            OptionSpec("namespace", value: "NAME", "The namespace (default: the one the replica mirrors, else default)."),
            OptionSpec("replica", value: "FILE", "The replica's file (required)."),
            OptionSpec("timeout", value: "S", "Give up after S seconds (default 30)."),
        ],
        examples: [
            "stored sync postgresql://app@db/prefs --namespace user:42 --replica ~/.local/state/my-app/prefs.replica",
            "stored sync postgresql://app@db/prefs --replica prefs.replica --timeout 5 || echo 'not synced yet'",
        ],
        positionalCount: 1...1
    ) { arguments, console in
        let timeout = try syncTimeout(arguments.value("timeout"))
        guard let path = arguments.value("replica"), !path.isEmpty else {
            throw CLIError.usage("sync", "--replica FILE is required: the replica's file")
        }
        let replica = try syncedReplica(at: path)
        let server = try PostgresLocation(
            server: arguments.positionals[0], for: "sync",
            namespace: arguments.value("namespace") ?? replica.namespace ?? "default")
        for problem in replica.problems {
            console.error("warning: '\(replica.path)' \(problem)")
        }
        if let recorded = replica.server, recorded != server.server {
            console.error("note: '\(replica.path)' last synchronized with \(recorded), not \(server.server)")
        }
        let backend = ReplicatedBackend(
            url: server.url, namespace: server.namespace, replica: URL(fileURLWithPath: replica.path),
            timeout: min(timeout, .seconds(5)))
        backend.startSyncReport()
        let store = try PreferenceStore(backend, durability: .immediate)
        store.backend.stopWatching()
        let failure = SyncRun.wait(for: store, timeout: timeout)
        let report = backend.takeSyncReport()
        let printer = SyncPrinter(report: report, console: console)
        printer.printKeys()
        let pending = store.syncState?.pendingWrites ?? replica.pendingWrites
        let shown = "'\(replica.path)' with \(server.description)"
        if let failure {
            printer.printSummary("Could not synchronize \(shown)", pending: pending)
            throw SyncRun.cliError(failure, report: report)
        }
        printer.printSummary("Synchronized \(shown)", pending: pending)
        let refused = printer.refusedKeys
        if !refused.isEmpty {
            throw CLIError(
                .refusedByServer,
                "\(server.description) refused the write of \(refused.map { "'\($0)'" }.joined(separator: ", ")) "
                    + "(reasons above); \(refused.count == 1 ? "it" : "they") left the replica's outbox and "
                    + "\(refused.count == 1 ? "its key is" : "their keys are") back to the server's value. "
                    + "Ask the server's administrator, or write an allowed value.")
        }
    }

    private static func syncTimeout(_ text: String?) throws(CLIError) -> Duration {
        guard let text else { return .seconds(30) }
        guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
            throw CLIError.usage("sync", "--timeout takes a positive number of seconds, not '\(text)'")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// The replica at `path`, read as it is: it must exist, be a replica, and hold no damage.
    private static func syncedReplica(at path: String) throws -> ReplicaInspection {
        let location = try StoreLocation(path.contains("/") ? path : "./" + path)
        guard FileManager.default.fileExists(atPath: location.path) else {
            throw CLIError(
                .inputOutput,
                "'\(location.path)' does not exist. Give the replica's file: an app makes it at its first open "
                    + "with .postgres(url:namespace:replica:).")
        }
        guard let replica = try location.replica() else {
            throw CLIError(
                .invalidInput,
                "'\(location.path)' is a \(location.kind.name) store, not an offline replica (it has no replica tables); "
                    + "nothing was sent. 'stored convert' copies a store's values to a server.")
        }
        try requireConsistent(ReplicaInspection.onlyDamage(replica))
        return replica
    }
}

extension PostgresLocation {
    /// The server of a command that names it as its first argument, with its namespace.
    init(server argument: String, for command: String, namespace: String) throws(CLIError) {
        guard Self.isServer(argument) else {
            throw CLIError.usage(command, "'\(argument)' is not a postgresql:// URL or libpq key=value string")
        }
        try self.init(argument, namespace: namespace)
    }
}

extension ReplicaInspection {
    /// The inspection with only its damage: what stops a sync (a stamp from the future does not:
    /// the server clamps it).
    static func onlyDamage(_ replica: ReplicaInspection) -> ReplicaInspection {
        var damaged = replica
        damaged.problems.removeAll { $0.kind != .damaged }
        return damaged
    }
}

/// Waiting for a store's synchronization from the command's synchronous code, and what its
/// failure means for the exit status.
enum SyncRun {
    /// Synchronizes `store` within `timeout`; nil when it did, else why not.
    static func wait(for store: PreferenceStore, timeout: Duration) -> (any Error)? {
        let outcome = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await store.synchronize(timeout: timeout)
            } catch {
                outcome.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0 }
    }

    /// The error `stored sync` ends with: a server that could not be reached in time (the last
    /// round's failure a connection failure, or no round finished) is status 6, nothing lost;
    /// another failure (a role that may not read, a replica of another namespace) is its own.
    static func cliError(_ error: any Error, report: SyncReport) -> CLIError {
        guard case .notSynchronized = error as? StoreError, let cause = report.lastFailure else { return CLIError(error) }
        // The message says why (the last attempt's failure) and that nothing was lost; the status, which failure it was.
        let status = CLIError(cause).exitCode
        return status == .serverUnreachable ? CLIError(error) : CLIError(status, CLIError(error).message)
    }
}
