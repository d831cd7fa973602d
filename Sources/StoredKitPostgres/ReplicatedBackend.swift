import Foundation
import StoredKit
import Synchronization

/// Shared preferences in a PostgreSQL namespace, kept in a local replica so the app works
/// offline: it opens from the replica's SQLite file without touching the network, every write
/// goes to the file first (with its stamp, in a durable outbox, in the same SQLite transaction),
/// and a background queue sends the outbox and reads what others wrote whenever the server can
/// be reached (its syncer). Observers hear what it merged on that queue.
///
/// Each key holds the change made last, by hybrid-logical-clock stamps taken at the `set`
/// ([`HybridTimestamp`](/StoredKit/documentation/storedkit/hybridtimestamp)): a machine coming back after a week offline does not overwrite what was
/// set since elsewhere; a removal is a stamped tombstone; ties go to the higher replica id. A
/// write that lost is reported ([`StoreEvent.lostToLaterWrite(key:winner:)`](/StoredKit/documentation/storedkit/storeevent/losttolaterwrite(key:winner:))), and so is a stamp
/// the server clamped because this machine's clock is too far ahead
/// ([`StoreEvent.stampClamped(key:server:allowedSkew:)`](/StoredKit/documentation/storedkit/storeevent/stampclamped(key:server:allowedskew:))). Defaults and layer values are never
/// written, so never sent.
///
/// Keep the replica in `$XDG_STATE_HOME/<app>/` (`~/.local/state/<app>/`), never in a cache
/// directory: it holds writes the server has not seen.
///
/// ```swift
/// let state = URL(filePath: NSHomeDirectory()).appending(path: ".local/state/my-app/prefs.replica")
/// let store = try PreferenceStore(.postgres(url: "postgresql://app@db/prefs", namespace: "user:42", replica: state))
/// store.set(0.8, forKey: "volume")  // works offline too
/// try await store.synchronize(timeout: .seconds(10))
/// ```
public final class ReplicatedBackend: SynchronizingBackend {
    /// The namespace this replica mirrors.
    ///
    /// ```swift
    /// ReplicatedBackend.postgres(url: url, namespace: "user:42", replica: file).namespace  //=> "user:42"
    /// ```
    public let namespace: String
    /// The replica's SQLite file.
    ///
    /// ```swift
    /// backend.replicaURL.path  //=> "/home/me/.local/state/my-app/prefs.replica"
    /// ```
    public let replicaURL: URL
    let replica: ReplicaFile
    let syncer: ReplicaSyncer
    /// Whether a load found the file mirroring this namespace (or nothing yet).
    private let namespaceChecked = Atomic(false)

    /// A replica of `namespace` on the server at `url` in the SQLite file `replica` (created when
    /// missing). `timeout` bounds each attempt to reach the server; a stamp more than
    /// `maximumClockSkew` ahead of the server's clock is recorded at the server's time plus it.
    ///
    /// ```swift
    /// let backend = ReplicatedBackend(url: "postgresql://app@db/prefs", namespace: "user:42", replica: file)
    /// ```
    public convenience init(
        url: String, namespace: String = "default", replica: URL, timeout: Duration = .seconds(5),
        maximumClockSkew: Duration = .seconds(60)
    ) {
        self.init(
            url: url, namespace: namespace, replica: ReplicaFile(at: replica), replicaURL: replica, timeout: timeout,
            maximumClockSkew: maximumClockSkew)
    }

    /// Tests give the replica a clock of their own.
    init(
        url: String, namespace: String, replica: ReplicaFile, replicaURL: URL, timeout: Duration, maximumClockSkew: Duration
    ) {
        self.namespace = namespace
        self.replicaURL = replicaURL
        self.replica = replica
        syncer = ReplicaSyncer(
            replica: replica, url: url, namespace: namespace, timeout: timeout, maximumClockSkew: maximumClockSkew)
    }

    deinit {
        syncer.stop()
    }

    /// The server (password removed), the namespace and the replica file.
    ///
    /// ```swift
    /// backend.location  //=> "postgresql://app@db/prefs namespace 'user:42' (replica /home/me/.local/state/app/prefs.replica)"
    /// ```
    public var location: String { "\(syncer.server) namespace '\(namespace)' (replica \(replicaURL.path))" }

    /// The clock each `set` is stamped with: the replica's, which resumes past every stamp it holds.
    public var writeClock: HybridLogicalClock? { replica.writeClock }

    // MARK: Backend

    /// Reads the replica (never the network) and starts synchronizing in the background.
    ///
    /// ```swift
    /// try backend.load().values  //=> ["volume": .double(0.8)]
    /// ```
    public func load() throws -> BackendSnapshot {
        var snapshot = try replica.load()
        // Once: the namespace a file mirrors changes only through this backend's own syncer.
        if !namespaceChecked.load(ordering: .acquiring), let cursor = try replica.syncCursor(), cursor.namespace != namespace {
            throw StoreError.refused(
                key: namespace,
                reason: "the replica '\(replicaURL.path)' mirrors namespace '\(cursor.namespace)' of \(cursor.server), "
                    + "not '\(namespace)'; give each namespace its own replica file")
        }
        namespaceChecked.store(true, ordering: .releasing)
        syncer.start()
        snapshot.events += syncer.takeEvents()
        return snapshot
    }

    /// Refuses at the `set` what the replica's file or the server would refuse later (U+0000 in a
    /// key, a value PostgreSQL cannot hold), so it never waits in the outbox.
    ///
    /// ```swift
    /// try backend.validate(.string("dark"), forKey: "theme")
    /// ```
    public func validate(_ value: StoredValue, forKey key: String) throws {
        try replica.validate(value, forKey: key)
        // What the server will refuse is refused here, before it waits in the outbox. Of the
        // server's columns only the nesting limit can refuse a value (its JSON): checked alone, a
        // `set` does not build the upload's columns (hex of a Data, JSON of a tree) for nothing.
        if value.isNested(deeperThan: StoredValue.maximumDepth) {
            throw StoreError.refused(key: key, reason: StoredValue.tooDeepReason)
        }
        if key.utf8.contains(0) {
            throw StoreError.refused(key: key, reason: "PostgreSQL text cannot hold U+0000 in a key; choose a key without it")
        }
    }

    /// Commits to the replica (value, stamp and outbox entry in one SQLite transaction, durable
    /// as the batch asks) and wakes the syncer.
    ///
    /// ```swift
    /// try backend.commit(BackendChanges(values: ["volume": .double(0.8)]))  //=> nil
    /// ```
    public func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        for key in changes.values.keys where key.utf8.contains(0) {
            throw StoreError.refused(key: key, reason: "PostgreSQL text cannot hold U+0000 in a key; choose a key without it")
        }
        let fresh = try replica.commit(changes)
        if !changes.isEmpty { syncer.nudge() }
        return fresh
    }

    /// Runs `body` on the replica under its exclusive lock; what it writes is queued and sent.
    ///
    /// ```swift
    /// let next = try backend.withExclusiveAccess { _ in (BackendChanges(values: ["count": .int(1)]), 1) }
    /// ```
    public func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        defer { syncer.nudge() }
        return try replica.withExclusiveAccess(body)
    }

    /// Calls `onChange` when another process writes the replica file, or the syncer merges what
    /// others wrote on the server.
    ///
    /// ```swift
    /// try backend.startWatching { print("changed elsewhere") }
    /// ```
    public func startWatching(_ onChange: @escaping @Sendable () -> Void) throws {
        try replica.startWatching(onChange)
        syncer.setOnChange(onChange)
    }

    /// Stops the calls of ``startWatching(_:)``.
    ///
    /// ```swift
    /// backend.stopWatching()
    /// ```
    public func stopWatching() {
        replica.stopWatching()
        syncer.setOnChange(nil)
    }

    /// Passes on the connection's news: lost, and restored.
    ///
    /// ```swift
    /// backend.startSignalling { print($0) }
    /// ```
    public func startSignalling(_ signal: @escaping @Sendable (BackendSignal) -> Void) {
        syncer.setOnSignal(signal)
    }

    /// Starts gathering what the rounds with the server do, key by key, for ``takeSyncReport()``:
    /// call it before the store opens to see its first round too. Nothing is gathered otherwise.
    ///
    /// ```swift
    /// backend.startSyncReport()
    /// ```
    package func startSyncReport() { syncer.startReport() }

    /// What the rounds did since ``startSyncReport()`` or the last call: the writes sent and what
    /// became of each, what the replica took from the server, the last failure.
    ///
    /// ```swift
    /// backend.takeSyncReport().received.keys.sorted()  //=> ["theme"]
    /// ```
    package func takeSyncReport() -> SyncReport { syncer.takeReport() }

    // MARK: SynchronizingBackend

    /// Where the replica stands with the server.
    ///
    /// ```swift
    /// backend.syncState.isConnected  //=> true
    /// ```
    public var syncState: SyncState { syncer.syncState }

    /// Calls `onChange` each time ``syncState`` may have changed.
    ///
    /// ```swift
    /// backend.observeSyncState { print(backend.syncState) }
    /// ```
    public func observeSyncState(_ onChange: @escaping @Sendable () -> Void) {
        syncer.observe(onChange)
    }

    /// Returns once what the replica held at the call is on the server and the replica has read
    /// the server since.
    ///
    /// ```swift
    /// try await backend.synchronize(timeout: .seconds(10))
    /// ```
    public func synchronize(timeout: Duration) async throws {
        syncer.start()
        try await syncer.synchronize(timeout: timeout)
    }
}

extension Backend where Self == ReplicatedBackend {
    /// A replica of `namespace` on the PostgreSQL server at `url`, kept in the SQLite file
    /// `replica`: the store opens from it offline, writes go to it first and are sent when the
    /// server can be reached, and the change made last wins (see ``ReplicatedBackend``). Keep
    /// the file in `$XDG_STATE_HOME/<app>/`, never in a cache directory.
    ///
    /// ```swift
    /// let store = try PreferenceStore(.postgres(url: "postgresql://app@db/prefs", namespace: "user:42", replica: file))
    /// ```
    public static func postgres(
        url: String, namespace: String = "default", replica: URL, timeout: Duration = .seconds(5),
        maximumClockSkew: Duration = .seconds(60)
    ) -> ReplicatedBackend {
        ReplicatedBackend(
            url: url, namespace: namespace, replica: replica, timeout: timeout, maximumClockSkew: maximumClockSkew)
    }
}

extension AnyBackend {
    /// ``ReplicatedBackend`` for `namespace` on the server at `url` with its replica in `replica`,
    /// as `Backend.postgres(url:namespace:replica:timeout:maximumClockSkew:)` makes it.
    ///
    /// ```swift
    /// let backend: AnyBackend = .postgres(url: "postgresql://app@db/prefs", namespace: "user:42", replica: file)
    /// ```
    public static func postgres(
        url: String, namespace: String = "default", replica: URL, timeout: Duration = .seconds(5),
        maximumClockSkew: Duration = .seconds(60)
    ) -> AnyBackend {
        AnyBackend(
            ReplicatedBackend(
                url: url, namespace: namespace, replica: replica, timeout: timeout, maximumClockSkew: maximumClockSkew))
    }
}

extension ReplicatedBackend: ReloadingBackend {
    /// ``startWatching(_:)``, where what the syncer merges is loaded by the store on the syncer's
    /// queue at once (`reloadingNow`), not after a hand-over to another thread.
    ///
    /// ```swift
    /// try backend.startWatching({ print("another process wrote the file") }, reloadingNow: { print("merged") })
    /// ```
    package func startWatching(
        _ onChange: @escaping @Sendable () -> Void, reloadingNow: @escaping @Sendable () -> Void
    ) throws {
        try replica.startWatching(onChange)
        syncer.setOnChange(onChange, reloadingNow: reloadingNow)
    }
}
