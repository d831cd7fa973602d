import Foundation
import StoredKit
import Synchronization

/// Preferences in a PostgreSQL server (15 or newer), one namespace per store, shared by every
/// process on every machine that opens the same namespace: each write transaction bumps the
/// namespace's revision and notifies, and every process's listener tells its stores, which read
/// only the rows above the revision they have. A notification names the namespace by a random
/// token and carries no value: it is a hint that makes a store look, never what the store reads.
///
/// The stores of one process on one server share its connections (see <doc:SharingPreferencesAcrossMachines>).
/// Namespaces and keys are always bound parameters; the password never appears in
/// ``location``, errors or events. The tables are in <doc:SharingPreferencesAcrossMachines>:
///
/// ```swift
/// let store = try PreferenceStore(.postgres(url: "postgresql://app@db.internal/prefs", namespace: "user:42"))
/// // $ psql prefs -c "select key, type, string_value from storedkit.preferences where namespace = 'user:42'"
/// ```
public final class PostgresBackend: Backend {
    /// The namespace this store reads and writes: the unit of isolation.
    ///
    /// ```swift
    /// PostgresBackend.postgres(url: "postgresql:///prefs", namespace: "user:42").namespace  //=> "user:42"
    /// ```
    public let namespace: String
    /// The longest namespace, in UTF-8 bytes: with a key of ``PreferenceStore/maximumKeyLength``, it
    /// fits an index row (at most 2,704 bytes).
    static let maximumNamespaceBytes = 1_024

    let url: String
    let state = Mutex(State())

    /// Everything mutable, guarded by `state`.
    struct State {
        var server: PostgresServer?
        /// The data as of `revision`, without events.
        var cached: BackendSnapshot?
        var revision: Int64 = 0
        var pendingEvents: [StoreEvent] = []
        var subscription: UInt64?
        /// The listener's ``PostgresListener/liveEpoch`` when `subscription` was made by a read,
        /// until ``startWatching(_:)`` relies on it once.
        var subscribedBeforeRead: UInt64?
        /// Keys of rows that reads do not show: another spelling (up to Unicode normalisation) of
        /// a shown key. A removal removes them too. Usually empty.
        var hiddenSpellings: [String] = []
        /// The namespace's notification token as the last read found it (nil: no row yet).
        var notifyToken: String?
        /// The role, when its access rules (``PostgresAccess``) let it only read this namespace, as
        /// the first read found it or a write refused since (``explainedWriteRefusal(_:_:)``).
        var readOnlyRole: String?
        /// Whether a read found that no rule covers the namespace any more (reported once, until a read finds it again).
        var accessLost = false
    }

    /// The newest revision this backend has read or written: the listener compares against it
    /// without taking `state`, so a backend busy committing never holds up other namespaces.
    let seenRevision = Atomic<Int64>(0)
    /// The revision of this backend's commit in flight: its `NOTIFY` can reach the listener
    /// before the commit returns and `seenRevision` records it, and must not read as news.
    let ownCommit = Atomic<Int64>(0)
    /// Whether notices keep asking for reads that find nothing (see ``NoticeThrottle``).
    let noticeThrottle = Mutex(NoticeThrottle())
    /// How many times this backend read from the server to catch up (not the first read): what
    /// tests count to see that a flood of notices costs a bounded number of reads.
    let catchUpReads = Atomic<Int>(0)

    /// The engine's handlers, apart from `state` for the same reason: the listener thread calls them.
    let handlers = Mutex<Handlers>(Handlers())

    struct Handlers {
        var onChange: (@Sendable () -> Void)?
        var onSignal: (@Sendable (BackendSignal) -> Void)?
        /// The newest revision heard while nobody watched yet (subscribed by a read, not watching
        /// yet; `Int64.max`: anything may have changed). Heard during the read, it may be one
        /// the read saw: only one above the read's tells the watcher.
        var missed: Int64 = 0
    }

    /// Creates a backend; see ``PostgresBackend/postgres(url:namespace:timeout:)``. Nothing connects until the first ``load()``.
    ///
    /// ```swift
    /// let backend = PostgresBackend(url: "postgresql://app@db.internal/prefs", namespace: "user:42")
    /// ```
    public convenience init(url: String, namespace: String = "default", timeout: Duration = .seconds(5)) {
        self.init(url: url, namespace: namespace, timeout: timeout, maximumClockSkew: Self.defaultMaximumClockSkew)
    }

    /// Creates a backend whose writes' stamps may be at most `maximumClockSkew` ahead of the
    /// server's clock (see ``maximumClockSkew``); see ``PostgresBackend/postgres(url:namespace:timeout:maximumClockSkew:)``.
    ///
    /// ```swift
    /// let backend = PostgresBackend(url: "postgresql://app@db/prefs", namespace: "user:42", maximumClockSkew: .seconds(5))
    /// ```
    public convenience init(
        url: String, namespace: String = "default", timeout: Duration = .seconds(5), maximumClockSkew: Duration
    ) {
        self.init(
            url: url, namespace: namespace, timeout: timeout, tombstoneRetention: 7 * 86_400, pruneEvery: 100,
            maximumClockSkew: maximumClockSkew)
    }

    /// Tests shorten the retention and prune at every commit, and drive the clock (a
    /// ``HybridLogicalClock`` on a wall clock of their own) or the replica id.
    init(
        url: String, namespace: String, timeout: Duration = .seconds(5), tombstoneRetention: Double, pruneEvery: Int64,
        maximumClockSkew: Duration = PostgresBackend.defaultMaximumClockSkew, clock: HybridLogicalClock = HybridLogicalClock(),
        replicaID: String = UUID().uuidString.lowercased()
    ) {
        self.url = url
        self.namespace = namespace
        self.timeout = timeout
        self.tombstoneRetention = tombstoneRetention
        self.pruneEvery = pruneEvery
        self.maximumClockSkew = max(.zero, maximumClockSkew)
        self.clock = clock
        self.replicaID = replicaID
        let (seconds, attoseconds) = self.maximumClockSkew.components
        skewMilliseconds = String(seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
    }

    /// The skew a store allows unless told otherwise: a minute, far more than NTP leaves between
    /// machines, far less than a clock set wrong by hand.
    static let defaultMaximumClockSkew = Duration.seconds(60)

    /// How far ahead of the server's clock a write's stamp may be (60 seconds unless given; never
    /// negative): the server records a stamp further ahead at its own time plus this much, and the
    /// store reports [`StoreEvent.stampClamped(key:server:allowedSkew:)`](/StoredKit/documentation/storedkit/storeevent/stampclamped(key:server:allowedskew:)),
    /// so that one machine whose clock is a year ahead cannot make its writes win for a year.
    ///
    /// ```swift
    /// PostgresBackend(url: "postgresql://app@db/prefs").maximumClockSkew  //=> 60 seconds
    /// ```
    public let maximumClockSkew: Duration
    /// ``maximumClockSkew`` in milliseconds, as the stamped statements take it.
    let skewMilliseconds: String

    /// Stamps every write (at the `set`, by the store, or at commit for transactions and
    /// migrations), and moves past every stamp a read shows: the change made last wins.
    let clock: HybridLogicalClock
    /// This backend's tie-break between equal stamps, and how a write recognises its own stamp
    /// on the server (a retry after a lost reply): random, a lowercase UUID, one per backend.
    let replicaID: String

    /// The clock the store stamps each `set` and removal with when it is made: a write's stamp
    /// is when it was made, not when it reached the server, and of two writes of a key the later
    /// stamp wins (ties: the higher replica id), whatever order they commit in.
    ///
    /// ```swift
    /// PostgresBackend(url: "postgresql://app@db/prefs").writeClock?.tick()  //=> 1780000000000.0
    /// ```
    public var writeClock: HybridLogicalClock? { clock }

    /// How long tombstones of removed keys are kept, in seconds: a store that was away (closed or
    /// offline) for longer reads its namespace whole when it comes back.
    let tombstoneRetention: Double
    /// Every how many revisions a commit prunes old tombstones.
    let pruneEvery: Int64
    /// How long a command (a flush, an `.immediate` write, an update) waits for an unreachable
    /// server before it fails; while the server is known to be down, commands fail at once.
    ///
    /// ```swift
    /// PostgresBackend(url: "postgresql://app@db/prefs", timeout: .seconds(2)).timeout  //=> 2 seconds
    /// ```
    public let timeout: Duration

    deinit {
        stopWatching()
    }

    /// The server (password removed) and the namespace, for messages.
    ///
    /// ```swift
    /// PostgresBackend(url: "postgresql://app:secret@db/prefs", namespace: "user:42").location
    /// //=> "postgresql://app@db/prefs namespace 'user:42'"
    /// ```
    public var location: String {
        let server = (try? PostgresAddress(url))?.description ?? "(invalid PostgreSQL URL)"
        return "\(server) namespace '\(namespace)'"
    }

    // MARK: Backend

    /// Reads the namespace: everything at first, then only the rows above the last revision seen.
    ///
    /// ```swift
    /// try backend.load().values  //=> ["volume": .double(0.8)]
    /// ```
    public func load() throws -> BackendSnapshot {
        try state.withLock { state in
            let server = try server(&state)
            subscribeBeforeReading(&state, server)
            if state.cached != nil { catchUpReads.add(1, ordering: .relaxed) }
            // One statement, so one snapshot of the server without a transaction around it.
            let moved = try server.withReading(timeout: timeout, notices: relay) { connection in
                if state.cached == nil, server.underAccessControl { try checkAccess(&state, connection) }
                return try refresh(&state, connection)
            }
            readAfterNotice(moved: moved)
            learnToken(&state)
            return takeSnapshot(&state)
        }
    }

    /// Commits the batch in one transaction that bumps the namespace's revision (`UPDATE …
    /// RETURNING`, which also orders it after every other writer, and queues the one `NOTIFY`),
    /// then upserts and removes the keys. Returns the fresh snapshot when others committed since our last read.
    ///
    /// ```swift
    /// try backend.commit(BackendChanges(values: ["volume": .double(0.8), "old": nil]))  //=> nil
    /// ```
    public func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        guard !changes.isEmpty else { return nil }
        try validate(changes)
        return try state.withLock { state -> BackendSnapshot? in
            do {
                if let alone = Self.aloneUpsert(changes), state.cached != nil {
                    let stamp = changes.stamps[alone.key] ?? clock.tick()
                    return try commitAlone(key: alone.key, value: alone.value, stamp: stamp, &state)
                }
                let previous = state.revision
                let (revision, fresh, outcome) = try withOwnCommit {
                    try server(&state).withTransaction(timeout: timeout, notices: relay) { connection in
                        let (revision, recreated, outcome) = try write(changes, &state, connection)
                        // The row lock holds every other writer back, so this reads a consistent state;
                        // it becomes the cache only once committed. A row created again is read whole.
                        // A write that lost: the winner is read, so the store shows it, not ours.
                        let external = state.cached != nil && (revision != previous + 1 || recreated)
                        let since = recreated || state.cached == nil ? nil : previous
                        let due = external || !outcome.lost.isEmpty
                        let fresh = due ? try read(since: since, into: state.cached, &state, connection).snapshot : nil
                        return (revision, fresh, outcome)
                    }
                }
                if let fresh { state.cached = fresh }
                record(outcome.applied(changes), revision: revision, &state)
                report(outcome, &state)
                return fresh != nil || !outcome.isQuiet ? takeSnapshot(&state) : nil
            } catch {
                throw explainedWriteRefusal(error, &state)
            }
        }
    }

    /// Runs `body` on the freshest data in one READ COMMITTED transaction that first locks the
    /// namespace row (`SELECT … FOR UPDATE`), so read-modify-writes from every machine serialise
    /// and `body` runs once; a throw rolls everything back. `body` must not call this backend.
    ///
    /// ```swift
    /// let next = try backend.withExclusiveAccess { snapshot in
    ///     (BackendChanges(values: ["count": .int(1)]), 1)
    /// }
    /// ```
    public func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        // `R` need not be Sendable: carry it out of the lock in a local, as SQLiteBackend does.
        var result: R?
        try state.withLock { state in
            do {
                let committed = try withOwnCommit {
                    try server(&state).withTransaction(timeout: timeout, notices: relay) { connection in
                        try exclusive(body, &state, connection)
                    }
                }
                if let revision = committed.revision {
                    record(committed.outcome.applied(committed.changes), revision: revision, &state)
                    report(committed.outcome, &state)
                    // Under the lock the cache was fresh and the clock past it, so only a hand edit racing
                    // the transaction beats it: the store reloads, and hears the winner with the events.
                    if !committed.outcome.lost.isEmpty { changed(.max) }
                }
                result = committed.value
            } catch {
                // The cache may hold what was just rolled back: the next read starts over.
                state.cached = nil
                throw explainedWriteRefusal(error, &state)
            }
        }
        guard let result else {
            throw StoreError.postgres(server: location, code: "XX000", message: "exclusive access ended without a result")
        }
        return result
    }

    /// Calls `onChange` when another process (on any machine) commits to this namespace, through
    /// the process's one listener connection to the server; our own commits never signal.
    ///
    /// ```swift
    /// try backend.startWatching { print("someone else wrote") }
    /// ```
    public func startWatching(_ onChange: @escaping @Sendable () -> Void) throws {
        let (listener, heardSinceRead) = try state.withLock { state in
            let listener = try server(&state).listener
            defer { state.subscribedBeforeRead = nil }
            if state.subscription != nil, let epoch = state.subscribedBeforeRead, listener.liveEpoch == epoch {
                return (listener, true)
            }
            unsubscribe(&state)
            state.subscription = listener.subscribe(namespace) { [weak self] signal in
                self?.heard(signal)
            }
            learnToken(&state)
            return (listener, false)
        }
        let missed = handlers.withLock { handlers in
            handlers.onChange = onChange
            defer { handlers.missed = 0 }
            return handlers.missed
        }
        if missed > seenRevision.load(ordering: .acquiring) { onChange() }
        // Subscribed before the last read on a listener LISTENing since: every commit that read
        // did not see was heard (and is in `missed`), so there is nothing to look at.
        if heardSinceRead { return }
        try listener.waitUntilLive()
        // Commits between the last load and the LISTEN were announced to nobody: look once.
        let current = try state.withLock { state in
            try server(&state).withReading(timeout: timeout) { connection in
                try connection.query(PostgresSchema.selectNamespace, [namespace]).first?.first.flatMap {
                    $0.flatMap { Int64($0) }
                }
            }
        }
        if let current, current > seenRevision.load(ordering: .acquiring) { handlers.withLock { $0.onChange }?() }
    }

    /// What this backend's role lacks to write the tables, as its first ``load()`` found it
    /// (`has_table_privilege`), or a read-write access rule for the namespace when the role's rule
    /// only reads it (found by the first load, or by a write the rule refused since); `nil` when it
    /// may write. A role granted `SELECT` alone opens a read-only store that refuses every write at once.
    ///
    /// ```swift
    /// let reporting = PostgresBackend(url: "postgresql://reporting@db/prefs", namespace: "user:42")
    /// _ = try reporting.load()
    /// reporting.missingWritePrivilege  //=> "INSERT on storedkit.namespaces, UPDATE on storedkit.namespaces, ..."
    /// ```
    public var missingWritePrivilege: String? {
        let (server, readOnlyRole) = state.withLock { ($0.server, $0.readOnlyRole) }
        return server?.missingWritePrivilege ?? readOnlyRole.map { PostgresAccess.readOnlyRule(namespace, role: $0) }
    }

    /// Stops the calls started by ``startWatching(_:)``.
    ///
    /// ```swift
    /// backend.stopWatching()
    /// ```
    public func stopWatching() {
        state.withLock { state in
            unsubscribe(&state)
        }
        handlers.withLock { $0.onSignal = nil }
    }

    /// Passes `signal` the connection's news for this namespace's server:
    /// [`StoreEvent.connectionLost(server:reason:)`](/StoredKit/documentation/storedkit/storeevent/connectionlost(server:reason:))
    /// when the listener's connection breaks,
    /// [`StoreEvent.connectionRestored(server:)`](/StoredKit/documentation/storedkit/storeevent/connectionrestored(server:))
    /// and [`BackendSignal.retryPending`](/StoredKit/documentation/storedkit/backendsignal/retrypending) when it is
    /// back (after the catch-up read is signalled).
    ///
    /// ```swift
    /// backend.startSignalling { signal in print(signal) }  //=> event(Lost the connection to ...)
    /// ```
    public func startSignalling(_ signal: @escaping @Sendable (BackendSignal) -> Void) {
        handlers.withLock { $0.onSignal = signal }
    }

    // MARK: Internals

    /// The body of ``withExclusiveAccess(_:)`` inside its transaction: its result, its changes and
    /// their revision (nil when it changed nothing), which the caller records only after COMMIT.
    private func exclusive<R>(
        _ body: (BackendSnapshot) throws -> (BackendChanges, R), _ state: inout State, _ connection: PostgresConnection
    ) throws -> (value: R, changes: BackendChanges, revision: Int64?, outcome: StampOutcome) {
        try connection.query(PostgresSchema.ensureNamespace, [namespace])
        let row = try connection.query(PostgresSchema.lockNamespace, [namespace]).first
        let current = row?.first.flatMap { $0.flatMap { Int64($0) } } ?? 0
        if state.cached == nil || current != state.revision {
            let since = state.cached != nil && current > state.revision ? state.revision : nil
            state.cached = try read(since: since, into: state.cached, &state, connection).snapshot
            state.revision = current
        }
        var snapshot = state.cached ?? BackendSnapshot()
        snapshot.events = []
        let (changes, value) = try body(snapshot)
        guard !changes.isEmpty else { return (value, changes, nil, StampOutcome()) }
        try validate(changes)
        // Stamped now, at commit (`changes` has no stamps): above everything the read just showed.
        let (revision, _, outcome) = try write(changes, &state, connection)  // the row is ensured: never created again here
        return (value, changes, revision, outcome)
    }

    /// Runs a write transaction (`body`); when it fails, the revision it bumped may be committed
    /// after all (a lost `COMMIT` reply) or given to another writer, whose notification must not
    /// be taken for ours: the mark is dropped and the store looks once.
    func withOwnCommit<R>(_ body: () throws -> R) throws -> R {
        ownCommit.store(0, ordering: .releasing)
        do {
            return try body()
        } catch {
            if ownCommit.exchange(0, ordering: .acquiringAndReleasing) != 0 { changed(.max) }
            throw error
        }
    }

    private func unsubscribe(_ state: inout State) {
        if let subscription = state.subscription, let listener = try? state.server?.listener {
            listener.unsubscribe(namespace, subscription)
        }
        state.subscription = nil
        state.subscribedBeforeRead = nil
        handlers.withLock { $0.onChange = nil }
    }

    /// When the process's listener is LISTENing already (another store of the server is open),
    /// subscribes before the first read: every commit that read does not see is then heard, so
    /// ``startWatching(_:)`` needs no look at the namespace of its own, a round trip of every
    /// warm open. On a cold process it waits for ``startWatching(_:)`` and looks, as before.
    private func subscribeBeforeReading(_ state: inout State, _ server: PostgresServer) {
        guard state.subscription == nil, let listener = server.startedListener, let epoch = listener.liveEpoch else {
            return
        }
        state.subscription = listener.subscribe(namespace) { [weak self] signal in
            self?.heard(signal)
        }
        state.subscribedBeforeRead = epoch
    }

    /// Passes what the server said while running this namespace's commands to the store's events.
    func relay(_ notices: [String]) {
        guard let onSignal = handlers.withLock({ $0.onSignal }) else { return }
        let server = (try? PostgresAddress(url))?.description ?? location
        for notice in notices { onSignal(.event(.serverNotice(server: server, message: notice))) }
    }

    func server(_ state: inout State) throws -> PostgresServer {
        if let server = state.server { return server }
        guard !namespace.utf8.contains(0) else {
            throw StoreError.unrepresentable(
                key: "namespace", reason: "PostgreSQL text cannot hold U+0000; choose another namespace")
        }
        guard namespace.utf8.count <= Self.maximumNamespaceBytes else {
            throw StoreError.unrepresentable(
                key: "namespace",
                reason:
                    "it is \(namespace.utf8.count) bytes; at most \(Self.maximumNamespaceBytes) fit the server's index beside a key"
            )
        }
        let server = PostgresServer.shared(for: try PostgresAddress(url))
        state.server = server
        return server
    }

    /// Asks which access rule covers the namespace (``PostgresAccess``), for a role under access
    /// control: none fails the read, naming the role and its rules; a read-only rule makes
    /// ``missingWritePrivilege`` say so, and the store opens read-only.
    func checkAccess(_ state: inout State, _ connection: PostgresConnection) throws {
        switch try PostgresAccess.level(of: namespace, connection) {
        case .unrestricted, .readWrite: state.readOnlyRole = nil
        case .read(let role): state.readOnlyRole = role
        case .none(let role, let rules):
            throw PostgresAccess.refusal(
                namespace: namespace, role: role, rules: rules, server: connection.address.description)
        }
    }

    /// `error`, or when the policies refused a write (the server says only "row-level security"),
    /// what the rules say now: none covers the namespace any more, or only a read-only one, which
    /// ``missingWritePrivilege`` then says too, so the store becomes read-only at once (as if it had
    /// opened so) rather than sending every later write to the server to be refused.
    func explainedWriteRefusal(_ error: any Error, _ state: inout State) -> any Error {
        guard case .postgres(_, "42501", let message)? = error as? StoreError, let server = state.server else { return error }
        guard message.contains("row-level security") else {
            // A table privilege revoked since the open: ``missingWritePrivilege`` learns which.
            try? server.withReading(timeout: timeout) { server.recheckWritePrivileges($0) }
            return error
        }
        guard server.underAccessControl,
            let level = try? server.withReading(timeout: timeout, { try PostgresAccess.level(of: namespace, $0) })
        else { return error }
        switch level {
        case .none(let role, let rules):
            return PostgresAccess.refusal(namespace: namespace, role: role, rules: rules, server: server.address.description)
        case .read(let role):
            state.readOnlyRole = role
            return PostgresAccess.readOnlyRefusal(namespace: namespace, role: role, server: server.address.description)
        case .unrestricted, .readWrite:
            return error  // a rule granted again meanwhile: the server's own words
        }
    }

    /// The refusal when the role's rules no longer cover the namespace (nil: they do).
    func lostAccess(_ connection: PostgresConnection) throws -> StoreError? {
        guard case .none(let role, let rules) = try PostgresAccess.level(of: namespace, connection) else { return nil }
        return PostgresAccess.refusal(namespace: namespace, role: role, rules: rules, server: connection.address.description)
    }

    func takeSnapshot(_ state: inout State) -> BackendSnapshot {
        var snapshot = state.cached ?? BackendSnapshot()
        snapshot.events = state.pendingEvents
        state.pendingEvents = []
        return snapshot
    }
}

extension Backend where Self == PostgresBackend {
    /// A backend that keeps preferences in `namespace` of the PostgreSQL server at `url` (libpq's
    /// URI or `key=value` form; `sslmode`, `PGPASSFILE` and libpq's other parameters work as
    /// libpq documents them; use `sslmode=verify-full` for a remote server). A flush, an
    /// `.immediate` write or an update fails after `timeout` when the server does not answer,
    /// and at once while it is known to be down; `set` keeps its writes pending meanwhile.
    ///
    /// ```swift
    /// let store = try PreferenceStore(.postgres(url: "postgresql://app@db.internal/prefs", namespace: "user:42"))
    /// let patient = try PreferenceStore(.postgres(url: "postgresql://app@db/prefs", timeout: .seconds(30)))
    /// ```
    public static func postgres(
        url: String, namespace: String = "default", timeout: Duration = .seconds(5)
    ) -> PostgresBackend {
        PostgresBackend(url: url, namespace: namespace, timeout: timeout)
    }

    /// ``postgres(url:namespace:timeout:)`` with the skew a write's stamp may have ahead of the
    /// server's clock (``PostgresBackend/maximumClockSkew``; 60 seconds in the other form).
    /// Of two writes of a key, the one made later (by hybrid-logical-clock stamp) wins, whatever
    /// order they reach the server in; a stamp further ahead than this is clamped and reported.
    ///
    /// ```swift
    /// let store = try PreferenceStore(.postgres(url: "postgresql://app@db/prefs", maximumClockSkew: .seconds(10)))
    /// ```
    public static func postgres(
        url: String, namespace: String = "default", timeout: Duration = .seconds(5), maximumClockSkew: Duration
    ) -> PostgresBackend {
        PostgresBackend(url: url, namespace: namespace, timeout: timeout, maximumClockSkew: maximumClockSkew)
    }
}
