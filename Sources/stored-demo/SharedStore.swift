import Dispatch
import Foundation
import StoredKit
import StoredKitPostgres
import Synchronization

/// `--shared URL [--namespace NAME] [--replica FILE]`: the sidebar on a PostgreSQL namespace that
/// several machines share, through a local replica (`.postgres(url:namespace:replica:)`), so the
/// demo opens and works with the server down and its changes are sent when it is back.
///
/// ```swift
/// let shared = SharedStore(url: "postgresql://me@db/prefs", namespace: "demo", replica: file)
/// let store = try shared.open(forcedFile: URL(fileURLWithPath: DemoCommand.standardForcedPath))
/// store.syncState?.description  //=> "offline — 1 change not synced yet (never synced)"
/// ```
struct SharedStore: Equatable {
    /// The server, as libpq takes it (`postgresql://user@host/database`, or `host=... dbname=...`).
    var url: String
    /// The namespace every window of the demo shares.
    var namespace: String
    /// This window's replica: one file per machine (or per window, to play two machines on one).
    var replica: URL

    /// The namespace when `--namespace` is not given.
    static let defaultNamespace = "demo"

    /// How long a command run from a script waits for its change to reach the server, and how
    /// long quitting the interactive sidebar waits for what is still queued while it is online.
    static let commandSyncTimeout = Duration.seconds(3)
    static let quitSyncTimeout = Duration.seconds(2)

    /// `$XDG_STATE_HOME/stored-demo/<namespace>.replica` (or `~/.local/state/...`): state, not cache,
    /// as a replica holds writes the server has not seen yet.
    ///
    /// ```swift
    /// SharedStore.defaultReplicaURL(namespace: "demo").path  //=> "/home/me/.local/state/stored-demo/demo.replica"
    /// ```
    static func defaultReplicaURL(namespace: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: DemoCommand.homeDirectory).appending(path: ".local/state")
        // A namespace such as "user:42/tabs" still names one file in the folder.
        let name = String(namespace.map { $0 == "/" || $0 == "\0" ? "_" : $0 })
        return base.appending(path: "stored-demo/\(name).replica")
    }

    /// Opens the replica (created when missing, never waiting for the server) under the
    /// administrator's forced file, as the SQLite store is.
    func open(forcedFile: URL) throws -> PreferenceStore {
        try FileManager.default.createDirectory(at: replica.deletingLastPathComponent(), withIntermediateDirectories: true)
        return try PreferenceStore(
            .postgres(url: url, namespace: namespace, replica: replica), layers: [.forced(.plist(at: forcedFile))])
    }

    /// What the title line names: the namespace and this window's replica.
    ///
    /// ```swift
    /// shared.location  //=> ("shared 'demo', replica", "~/.local/state/stored-demo/demo.replica")
    /// ```
    var location: (label: String, path: String) { ("shared '\(namespace)', replica", DemoCommand.displayPath(of: replica)) }

    /// Sends what the replica holds and reads what the server has, for at most `timeout`; returns
    /// why not when the server could not be reached in time (the writes stay queued in the
    /// replica, and the next run sends them). Blocks the calling thread: for the demo's commands,
    /// which end right after.
    ///
    /// ```swift
    /// SharedStore.synchronize(store, timeout: .seconds(3))  //=> nil once the server has it
    /// ```
    static func synchronize(_ store: PreferenceStore, timeout: Duration) -> String? {
        let outcome = SyncOutcome()
        // Detached: the caller (top-level code, on the main actor) blocks its thread until it ends.
        Task.detached {
            do {
                try await store.synchronize(timeout: timeout)
            } catch {
                outcome.failure.withLock { $0 = "\(error)" }
            }
            outcome.done.signal()
        }
        outcome.done.wait()
        return outcome.failure.withLock { $0 }
    }

    /// What a background synchronization hands back to the thread waiting for it.
    private final class SyncOutcome: Sendable {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
    }
}
