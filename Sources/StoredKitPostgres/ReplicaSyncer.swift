import Dispatch
import Foundation
import StoredKit
import Synchronization

/// The background half of a ``ReplicatedBackend``: rounds with the server, one at a time on a
/// queue of its own, each started when something asks (a local commit, a notice from the server,
/// a reconnection, ``synchronize(timeout:)``) or when its backoff runs out. A round is:
///
/// 1. **Upload.** The replica's outbox, oldest first, in one PostgreSQL transaction per batch,
///    each write with its stamp through ``PostgresSchema/stampedUpsert`` and
///    ``PostgresSchema/stampedRemove``, which apply it only if it is the key's latest. After
///    `COMMIT` the batch leaves the outbox. A crash between the two sends the batch again, and
///    the stamps make the second time a no-op: nothing is applied twice.
/// 2. **Catch up.** The rows the server changed since the replica's cursor, merged by stamp
///    (``ReplicaFile/record(_:merging:)``), the cursor recorded in the same SQLite transaction.
///
/// A round that fails (the server unreachable, a timeout) is retried with exponential backoff
/// and jitter, without waiting for a new local write; nothing leaves the outbox until the server
/// has committed it.
package final class ReplicaSyncer: Sendable {
    let replica: ReplicaFile
    let url: String
    let namespace: String
    let timeout: Duration
    let maximumClockSkew: Duration
    /// How many outbox entries one upload transaction carries.
    static let batchSize = 2_000
    /// The longest wait between two attempts while the server cannot be reached, in seconds.
    static let maximumBackoff = 10.0
    /// The wait between rounds when nothing wakes the syncer, in seconds: a notice lost on the
    /// way is made up for within it.
    static let idleRound = 30.0

    /// What crash tests stop a process at (`kill -9` there): in an upload, after its statements and
    /// before `COMMIT` (`beforeCommit`), or after `COMMIT` and before the outbox is told
    /// (`beforeAcknowledge`). Nil in every real program.
    package struct TestHooks: Sendable {
        package var beforeCommit: (@Sendable () -> Void)?
        package var beforeAcknowledge: (@Sendable () -> Void)?
        package init() {}
    }
    package static let testHooks = Mutex(TestHooks())

    /// Where rounds run, one at a time. A serial queue of our own runs on an overcommitting worker,
    /// so a round that waits for the network takes no thread of the shared pool; and a notice
    /// reaches its round in one hand-over, as a plain store's reload does (a thread of our own
    /// parked on a semaphore woke about twice as slowly, 100 µs against 40 µs on a 2-core VM).
    /// Utility, as background work the user is aware of: without a class of its own a round ran at
    /// the class of whoever asked (libdispatch on Linux sets a worker's nice value from it, down to
    /// −4), and preempted the very writes that asked for it.
    private let rounds = DispatchQueue(label: "StoredKit.ReplicaSyncer", qos: .utility)
    /// The newest revision of the namespace the replica has read or skipped as its own: a notice
    /// at or below it wakes nobody. (A namespace made again starts its revisions over: its notices
    /// then wake rounds only above the old revision, and the idle round reads it.)
    private let seenRevision = Atomic<Int64>(0)
    private let state = Mutex(State())
    /// The catch-up reads done, for tests that count what a flood of notices costs.
    let catchUpReads = Atomic<Int>(0)

    struct State {
        var started = false
        var stopped = false
        /// A round is queued and has not started yet: another request joins it.
        var roundQueued = false
        /// Starts the next round when nothing asks sooner: the idle round, a backoff, a notice held
        /// back. Set with the lock held, as Dispatch's sources are not `Sendable`.
        var timer: (any DispatchSourceTimer)?
        /// When the timer fires (nil: not armed).
        var timerDeadline: DispatchTime?
        /// Whether the timer's round looks at the outbox (the idle round, a backoff) or only reads
        /// (a notice held back by ``noticeHold()``).
        var timerUploads = true
        var failures = 0
        var sync = SyncState(pendingWrites: 0, lastSynced: nil, isConnected: false)
        /// Rounds started and finished without an error.
        var roundsStarted: UInt64 = 0
        var roundsSucceeded: UInt64 = 0
        var lastFailure: String?
        /// For the engine, with the next load.
        var events: [StoreEvent] = []
        var onChange: (@Sendable () -> Void)?
        /// The store's reload on the calling thread (see ``ReloadingBackend``): a merge is loaded
        /// on this queue at once, so observers hear it without another thread's wake-up.
        var reloadingNow: (@Sendable () -> Void)?
        /// A round changed the replica while nobody watched (between a store's load and its
        /// ``setOnChange(_:)``): the store's snapshot may be older, so it is told once it watches.
        var changedUnwatched = false
        var onSignal: (@Sendable (BackendSignal) -> Void)?
        var stateObservers: [@Sendable () -> Void] = []
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
        var subscription: (listener: PostgresListener, id: UInt64)?
        /// The server's pool and listener, held from the first round to ``stop()``: the registry
        /// holds servers weakly, so one a round only looked up would close its connections and its
        /// listener at the round's end, and the next round would connect again (and the new
        /// listener's going live would wake another round, and miss notices meanwhile).
        var server: PostgresServer?
        /// Whether the connection was lost and `connectionRestored` is owed.
        var inOutage = false
        /// Whether a refusal put keys back since the engine last heard of a change.
        var valuesReverted = false
        /// Whether the next round looks at the outbox (a local commit, a reconnection, a failed or
        /// idle round asked), or only reads what others wrote (a notice asked).
        var uploadDue = true
        /// When a round only notices asked for last read nothing new (nil: it found something, or
        /// the last round was asked for by more than a notice): see ``noticeHold()``.
        var idleNoticeReadAt: ContinuousClock.Instant?
        /// Whether a round read this server since the syncer started (its cursor is then this server's).
        var readThisServer = false
        /// The cursor this syncer last recorded in the replica.
        var cursor: ReplicaFile.SyncCursor?
        /// What the rounds did, key by key, once ``startReport()`` asked (nil: not gathered).
        var report: SyncReport?
    }

    /// A ``synchronize(timeout:)`` call: done once a round started after it (`after`) succeeds.
    struct Waiter {
        var after: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    init(replica: ReplicaFile, url: String, namespace: String, timeout: Duration, maximumClockSkew: Duration) {
        self.replica = replica
        self.url = url
        self.namespace = namespace
        self.timeout = timeout
        self.maximumClockSkew = maximumClockSkew
        let handler: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            let upload = state.withLock { state in
                state.timerDeadline = nil
                return state.timerUploads
            }
            nudge(upload: upload)
        }
        state.withLock { [rounds] state in
            let timer = DispatchSource.makeTimerSource(queue: rounds)
            timer.setEventHandler(handler: handler)
            timer.activate()
            state.timer = timer
        }
    }

    deinit {
        state.withLock { $0.timer?.cancel() }
    }

    /// The server's address without a password, as the replica records it.
    var server: String { (try? PostgresAddress(url))?.description ?? "(invalid PostgreSQL URL)" }

    // MARK: Control

    /// Starts the rounds once (the first is asked for at once); later calls do nothing.
    func start() {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        let pending = (try? replica.pendingSummary().count) ?? 0
        let lastSynced = (try? replica.syncCursor())??.lastSynced
        update {
            $0.pendingWrites = pending
            $0.lastSynced = lastSynced
        }
        nudge()
    }

    /// Runs the round asked for, unless the syncer stopped or a notice's round must wait
    /// (``noticeHold()``); then sets the timer for the next one.
    private func runRound() {
        let stopped = state.withLock { state in
            // From here a request queues the next round: a burst of nudges while one is queued is
            // this one round, which sends everything queued.
            state.roundQueued = false
            return state.stopped
        }
        guard !stopped else { return }
        if let hold = noticeHold() { return setTimer(after: hold, uploads: false) }
        // Started by nobody (the idle round, a backoff run out), a round looks at the outbox too.
        setTimer(after: round(), uploads: true)
    }

    /// Sets the timer to ask for a round in `seconds`.
    ///
    /// Moving a Dispatch timer wakes Dispatch's manager thread, which rounds a few milliseconds
    /// apart (a notice or a write each) would pay every time on a machine of two cores. So a timer
    /// already set to fire between three quarters of `seconds` and `seconds` from now is left: the
    /// idle round only makes up for a lost notice, and a round that fires a little early finds
    /// the same as one on time. (The timer's handler runs on the rounds' queue, never during a
    /// round; a fire still waiting when a round re-arms the timer is dropped by Dispatch.)
    private func setTimer(after seconds: Double, uploads: Bool) {
        state.withLock { state in
            state.timerUploads = uploads
            let now = DispatchTime.now()
            let deadline = now + seconds
            if let armed = state.timerDeadline, armed <= deadline, armed >= now + seconds * 0.75 { return }
            state.timerDeadline = deadline
            state.timer?.schedule(deadline: deadline)
        }
    }

    /// Ends the rounds (after the one in flight) and fails the callers still waiting.
    func stop() {
        let (waiters, subscription) = state.withLock { state in
            state.stopped = true
            state.timer?.cancel()
            defer {
                state.waiters = [:]
                state.subscription = nil
            }
            state.server = nil
            return (state.waiters.values.map(\.continuation), state.subscription)
        }
        if let subscription { subscription.listener.unsubscribe(namespace, subscription.id) }
        for continuation in waiters {
            continuation.resume(throwing: notSynchronized("the store was closed"))
        }
    }

    /// How long a round only notices asked for waits, in seconds; nil when it starts now.
    ///
    /// Any role that may connect can send notices, and replay a namespace's token at ever higher
    /// revisions (see the threat model in <doc:SharingPreferencesAcrossMachines>). So after a
    /// notice's read found nothing new, the next one waits until
    /// ``PostgresBackend/idleReadInterval`` has passed, as a plain store's does: a flood costs each
    /// replica at most one read per interval. A stream of real commits, each of whose reads finds
    /// something, is never held back, and a local commit (which asks for an upload) ends the wait.
    private func noticeHold() -> Double? {
        state.withLock { state in
            guard !state.stopped, !state.uploadDue, let idle = state.idleNoticeReadAt else { return nil }
            let remaining = PostgresBackend.idleReadInterval - (ContinuousClock.now - idle)
            guard remaining > .zero else { return nil }
            return Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
        }
    }

    /// Asks for a round now.
    ///
    /// `upload` false (a notice of someone else's commit) asks for the catch-up read alone: the
    /// outbox changes only with a commit to the replica, which asks for an upload.
    func nudge(upload: Bool = true) {
        let queue = state.withLock { state in
            if upload { state.uploadDue = true }
            // Before ``start()`` the request waits for the first round, which start() asks for.
            guard state.started, !state.stopped, !state.roundQueued else { return false }
            state.roundQueued = true
            return true
        }
        if queue { rounds.async { [weak self] in self?.runRound() } }
    }

    func setOnChange(_ onChange: (@Sendable () -> Void)?, reloadingNow: (@Sendable () -> Void)? = nil) {
        let missed = state.withLock { state in
            state.onChange = onChange
            state.reloadingNow = reloadingNow
            defer { if onChange != nil { state.changedUnwatched = false } }
            return onChange != nil && state.changedUnwatched
        }
        if missed { onChange?() }
    }

    /// Tells the store the replica changed, or keeps it for ``setOnChange(_:)`` when none watches yet.
    /// Called on the rounds' queue, holding no lock, so the store may reload right here.
    private func announceChange() {
        let onChange = state.withLock { state in
            if state.onChange == nil { state.changedUnwatched = true }
            return state.reloadingNow ?? state.onChange
        }
        onChange?()
    }
    func setOnSignal(_ onSignal: (@Sendable (BackendSignal) -> Void)?) { state.withLock { $0.onSignal = onSignal } }
    func observe(_ onChange: @escaping @Sendable () -> Void) { state.withLock { $0.stateObservers.append(onChange) } }

    var syncState: SyncState { state.withLock { $0.sync } }

    /// The events gathered since the last call, for the engine.
    func takeEvents() -> [StoreEvent] {
        state.withLock { state in
            defer { state.events = [] }
            return state.events
        }
    }

    /// Starts gathering a ``SyncReport`` of the rounds from now on (a report already started is kept).
    func startReport() {
        state.withLock { state in
            if state.report == nil { state.report = SyncReport() }
        }
    }

    /// The report gathered since ``startReport()`` or the last call (empty when none was started);
    /// a new one starts.
    func takeReport() -> SyncReport {
        state.withLock { state in
            defer { if state.report != nil { state.report = SyncReport() } }
            return state.report ?? SyncReport()
        }
    }

    /// Changes the report, when one is gathered.
    private func updateReport(_ change: (inout SyncReport) -> Void) {
        state.withLock { state in
            // Taken out while changed, so its dictionaries are not copied.
            guard var report = state.report.take() else { return }
            change(&report)
            state.report = report
        }
    }

    /// Waits for a round that starts after this call to succeed, at most `timeout`.
    func synchronize(timeout: Duration) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let stopped = state.withLock { state -> Bool in
                guard !state.stopped else { return true }
                state.waiters[id] = Waiter(after: state.roundsStarted, continuation: continuation)
                return false
            }
            guard !stopped else {
                return continuation.resume(throwing: notSynchronized("the store was closed"))
            }
            nudge()
            let (seconds, attoseconds) = timeout.components
            let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            DispatchQueue.global().asyncAfter(deadline: deadline) { [weak self] in
                guard let self else { return }
                let (waiter, reason) = state.withLock { state in
                    (state.waiters.removeValue(forKey: id), state.lastFailure)
                }
                let why = reason.map { "\(timeout) passed; the last attempt failed: \($0)" } ?? "\(timeout) passed"
                waiter?.continuation.resume(throwing: notSynchronized(why))
            }
        }
    }

    private func notSynchronized(_ reason: String) -> StoreError {
        .notSynchronized(
            location: "\(server) namespace '\(namespace)'", pendingWrites: state.withLock { $0.sync.pendingWrites },
            reason: reason)
    }

    // MARK: One round

    /// Uploads and catches up once; returns how long to wait before the next round unless woken.
    private func round() -> Double {
        state.withLock { $0.roundsStarted += 1 }
        let started = state.withLock { $0.roundsStarted }
        do {
            let server = try heldServer()
            try listen(on: server)
            // A replica that never read this server reads it first: then its upload's revisions
            // follow its cursor, and the read after it need not fetch back what it sent.
            var changed = false
            let (readBefore, uploadDue) = state.withLock { state in
                defer { state.uploadDue = false }
                return (state.readThisServer, state.uploadDue)
            }
            if !readBefore, try replica.syncCursor().map({ $0.server != self.server }) ?? true {
                changed = try catchUp(server, candidates: [])
            }
            let (candidates, current) = uploadDue ? try upload(server) : ([], false)
            // An upload that left the replica current needs no read: a commit by anyone else since
            // has a later revision, whose notice wakes the next round (a notice lost while the
            // listener was down is made up for by the round its going live asks for).
            if !current { changed = try catchUp(server, candidates: candidates) || changed }
            state.withLock { state in
                state.readThisServer = true
                state.idleNoticeReadAt = uploadDue || changed ? nil : .now
            }
            succeeded(round: started, changed: changed)
            updateReport {
                $0.rounds += 1
                $0.roundsSucceeded += 1
                $0.lastFailure = nil
            }
            return Self.idleRound
        } catch {
            updateReport {
                $0.rounds += 1
                $0.lastFailure = error
            }
            return failed(error)
        }
    }

    /// The server of ``url``, looked up on the first round and held until ``stop()``.
    private func heldServer() throws -> PostgresServer {
        if let held = state.withLock({ $0.server }) { return held }
        let server = PostgresServer.shared(for: try PostgresAddress(url))
        return state.withLock { state in
            if state.stopped { return server }  // not held: the store is closing
            state.server = server
            return server
        }
    }

    /// Ends a successful round; `told` says whether the store already heard of a change in it
    /// (``catchUp(_:candidates:)`` tells it as soon as the merge is recorded, before the round's
    /// bookkeeping, so a remote change reaches observers with the least delay).
    private func succeeded(round: UInt64, changed told: Bool) {
        let (waiters, restored, onSignal, tell) = state.withLock { state in
            state.failures = 0
            state.lastFailure = nil
            state.roundsSucceeded = round
            let done = state.waiters.filter { $0.value.after < round }
            for id in done.keys { state.waiters[id] = nil }
            defer { state.inOutage = false }
            defer { state.valuesReverted = false }
            return (
                done.values.map(\.continuation), state.inOutage, state.onSignal,
                state.valuesReverted || (!told && !state.events.isEmpty)
            )
        }
        if tell { announceChange() }
        let pending = (try? replica.pendingSummary().count) ?? 0
        update {
            $0.pendingWrites = pending
            $0.isConnected = true
            $0.lastSynced = Date()
        }
        if restored { onSignal?(.event(.connectionRestored(server: server))) }
        for continuation in waiters { continuation.resume() }
    }

    private func failed(_ error: any Error) -> Double {
        let pending = (try? replica.pendingSummary().count) ?? 0
        // The server's own words: a plain store's advice (flush again) is not a replica's to give.
        let reason =
            if case .postgres(_, _, let message)? = error as? StoreError { message } else {
                (error as? StoreError)?.description ?? "\(error)"
            }
        let (failures, lost, onSignal) = state.withLock { state in
            state.failures += 1
            state.uploadDue = true
            state.lastFailure = reason
            defer { state.inOutage = true }
            return (state.failures, !state.inOutage, state.onSignal)
        }
        update {
            $0.pendingWrites = pending
            $0.isConnected = false
        }
        if lost { onSignal?(.event(.connectionLost(server: server, reason: reason))) }
        // Exponential, with jitter, so machines that lost one server do not come back in step.
        let backoff = min(Self.maximumBackoff, 0.1 * pow(2, Double(min(failures, 16) - 1)))
        return backoff * Double.random(in: 0.5...1.0)
    }

    /// Changes the state and tells its observers when it changed.
    private func update(_ change: (inout SyncState) -> Void) {
        let observers = state.withLock { state -> [@Sendable () -> Void] in
            let before = state.sync
            change(&state.sync)
            return state.sync == before ? [] : state.stateObservers
        }
        for observer in observers { observer() }
    }

    /// Subscribes to the namespace's notices once per listener: a commit by anyone, or the
    /// listener live again after an outage, wakes the syncer.
    private func listen(on server: PostgresServer) throws {
        let listener = try server.listener
        let subscribed = state.withLock { $0.subscription?.listener === listener }
        guard !subscribed else { return }
        let id = listener.subscribe(namespace) { [weak self] signal in
            guard let self else { return }
            switch signal {
            // A notice of a revision the replica has read or written is old news (its own
            // upload's, mostly); its sender's word decides only whether to look, never what is read.
            case .committed(let revision):
                if revision > seenRevision.load(ordering: .acquiring) { nudge(upload: false) }
            case .live, .lost: nudge()  // lost: the round fails, and tells
            }
        }
        state.withLock { $0.subscription = (listener, id) }
    }

    /// Sends the outbox, batch by batch, until it is empty (or holds only writes made during this
    /// round, which the next one sends). Returns the writes the server did not apply, each of
    /// which lost to a later write or was applied before (an upload repeated after a crash), and
    /// whether the replica is current: something was sent, and every batch's revision followed
    /// the cursor and was skipped as its own (``skipOwnRevision(_:)``).
    ///
    /// A batch the server refuses (a privilege, an access rule, a limit: ``isRefusal(_:)``) is
    /// sent again with a savepoint around each write, so each refusal is found key by key: the
    /// refused writes leave the outbox and their keys go back to the server's values, and the
    /// rest is committed.
    private func upload(_ server: PostgresServer) throws -> (unapplied: [ReplicaFile.PendingWrite], current: Bool) {
        var unapplied: [ReplicaFile.PendingWrite] = []
        var (sentAny, current) = (false, true)
        var sentThrough: HybridTimestamp?
        while true {
            var batch = try replica.pendingWrites(limit: Self.batchSize)
            if let sentThrough { batch.removeAll { $0.stamp <= sentThrough } }
            guard !batch.isEmpty else { return (unapplied, sentAny && current) }
            let sent: Sent
            do {
                sent = try server.withTransaction(timeout: timeout) { connection in
                    try send(batch, connection, isolating: false)
                }
            } catch let error as StoreError where Self.isRefusal(error) {
                sent = try server.withTransaction(timeout: timeout) { connection in
                    try send(batch, connection, isolating: true)
                }
            }
            Self.testHooks.withLock { $0.beforeAcknowledge }?()
            try replica.acknowledge(batch, clamped: sent.clamped)
            current = try skipOwnRevision(sent) && current
            sentAny = true
            for key in sent.clamped.keys.sorted() {
                report(.stampClamped(key: key, server: self.server, allowedSkew: maximumClockSkew))
            }
            if !sent.refused.isEmpty { try revert(batch.filter { sent.refused[$0.key] != nil }, sent.refused, server) }
            if !sent.superseded.isEmpty { try revert(sent.superseded, nil, server) }
            unapplied += sent.notApplied
            reportUpload(batch, sent)
            sentThrough = batch.map(\.stamp).max()
            update { $0.pendingWrites = max(0, $0.pendingWrites - batch.count) }
        }
    }

    /// Moves the cursor past the revision an upload just committed when nobody else committed
    /// since the replica last read (the revision is the cursor's next, the token the same): the rows
    /// of that revision are this replica's own writes, which it holds, so the catch-up read need not
    /// fetch them back. A write the server did not apply, refused or took from another's migration
    /// leaves the cursor where it is, and the read brings the server's values.
    /// Returns whether it did.
    private func skipOwnRevision(_ sent: Sent) throws -> Bool {
        guard let revision = sent.revision, sent.notApplied.isEmpty, sent.refused.isEmpty, sent.superseded.isEmpty,
            var cursor = try replica.syncCursor(), cursor.server == server, cursor.namespace == namespace,
            cursor.revision > 0, cursor.revision + 1 == revision, cursor.notifyToken == sent.token
        else { return false }
        cursor.revision = revision
        cursor.lastSynced = nil  // kept as it was: this is no round with the server's news
        try replica.record(cursor)
        state.withLock { $0.cursor = cursor }
        seenRevision.store(revision, ordering: .releasing)
        return true
    }

    /// Records in the report what became of each write of `batch`.
    private func reportUpload(_ batch: [ReplicaFile.PendingWrite], _ sent: Sent) {
        let notApplied = Set(sent.notApplied.map(\.key))
        let superseded = Set(sent.superseded.map(\.key))
        updateReport { report in
            for write in batch {
                let outcome: SyncReport.Outcome =
                    if let reason = sent.refused[write.key] {
                        .refused(reason: reason)
                    } else if superseded.contains(write.key) {
                        .superseded
                    } else if notApplied.contains(write.key) {
                        .notApplied
                    } else if let recorded = sent.clamped[write.key] {
                        .clamped(recorded)
                    } else {
                        .applied
                    }
                report.sent[write.key] = .init(key: write.key, value: write.value, stamp: write.stamp, outcome: outcome)
            }
        }
    }

    /// What one upload transaction did.
    struct Sent {
        /// Writes the server did not apply (a later write holds the key, or this one already).
        var notApplied: [ReplicaFile.PendingWrite] = []
        /// Keys the server recorded with an earlier stamp than sent: the clamped one.
        var clamped: [String: HybridTimestamp] = [:]
        /// Keys the server refused, and why.
        var refused: [String: String] = [:]
        /// Writes of a migration another replica ran on the namespace first: not sent.
        var superseded: [ReplicaFile.PendingWrite] = []
        /// The namespace's revision the transaction committed, and its notification token.
        var revision: Int64?
        var token: String?
    }

    /// Sends `batch` in the transaction open on `connection`: the namespace's revision bumped, then
    /// each write stamped, in key order (so two uploads lock rows in the same order). `isolating`
    /// puts a savepoint around the bump and each write, and records a refusal instead of failing.
    private func send(_ batch: [ReplicaFile.PendingWrite], _ connection: PostgresConnection, isolating: Bool) throws -> Sent {
        var sent = Sent()
        let skew = String(
            Int64(maximumClockSkew.components.seconds) * 1000 + maximumClockSkew.components.attoseconds / 1_000_000_000_000_000)
        /// Runs `statement`; when isolating, a refusal rolls back to before it and is returned instead.
        func attempt<R>(_ statement: () throws -> R) throws -> Result<R, StoreError> {
            guard isolating else { return .success(try statement()) }
            try connection.run("SAVEPOINT storedkit_write")
            do {
                let result = try statement()
                try connection.run("RELEASE SAVEPOINT storedkit_write")
                return .success(result)
            } catch let error as StoreError where Self.isRefusal(error) {
                try connection.run("ROLLBACK TO SAVEPOINT storedkit_write")
                return .failure(error)
            }
        }
        // A migration's writes go only to a namespace no replica migrated that far before: the
        // namespace row, locked, says how far it is. Those of a migration another replica ran
        // first are not sent; their keys take the server's values (migrated by that replica).
        var batch = batch
        var schemaVersion: Int?
        if batch.contains(where: { $0.migration != nil }) {
            try connection.query(PostgresSchema.ensureNamespace, [namespace])
            let row = try connection.query(PostgresSchema.lockNamespace, [namespace]).first
            let server = row.flatMap { $0.count > 1 ? $0[1] : nil }.flatMap { $0.flatMap { Int($0) } } ?? 0
            sent.superseded = batch.filter { ($0.migration ?? .max) <= server }
            batch.removeAll { ($0.migration ?? .max) <= server }
            schemaVersion = batch.compactMap(\.migration).max().flatMap { $0 > server ? $0 : nil }
        }
        let bumped = try attempt {
            try connection.query(PostgresSchema.bumpRevision, [namespace, schemaVersion.map(String.init)])
        }
        guard case .success(let rows) = bumped else {
            if case .failure(let error) = bumped { for write in batch { sent.refused[write.key] = Self.reason(error) } }
            return sent
        }
        guard let revision = rows.first?.first ?? nil else {
            throw StoreError.postgres(server: server, code: "XX000", message: "the namespace row returned no revision")
        }
        sent.revision = Int64(revision)
        sent.token = rows.first?.last ?? nil
        for write in batch.sorted(by: { $0.key < $1.key }) {
            let stamp = [String(write.stamp.milliseconds), String(write.stamp.counter), write.replicaID, skew]
            let outcome = try attempt { () throws -> [[String?]] in
                guard let value = write.value else {
                    return try connection.query(PostgresSchema.stampedRemove, [namespace, write.key, revision] + stamp)
                }
                let (type, columns) = try PostgresValueColumns.columns(for: value, key: write.key)
                return try connection.query(
                    PostgresSchema.stampedUpsert, [namespace, write.key, type] + columns + [revision] + stamp)
            }
            let rows: [[String?]]
            switch outcome {
            case .success(let found): rows = found
            case .failure(let error):
                sent.refused[write.key] = Self.reason(error)
                continue
            }
            guard let row = rows.first, let ms = row.first.flatMap({ $0.flatMap { Int64($0) } }) else {
                sent.notApplied.append(write)
                continue
            }
            let counter = row.count > 1 ? row[1].flatMap { UInt32($0) } ?? write.stamp.counter : write.stamp.counter
            let recorded = HybridTimestamp(milliseconds: ms, counter: counter)
            if recorded < write.stamp { sent.clamped[write.key] = recorded }
        }
        Self.testHooks.withLock { $0.beforeCommit }?()
        return sent
    }

    /// Puts the keys of `writes` back to what the server holds, and reports each refusal (`reasons`;
    /// nil: writes of a migration another replica ran first, which are not refusals).
    private func revert(
        _ writes: [ReplicaFile.PendingWrite], _ reasons: [String: String]?, _ server: PostgresServer
    ) throws {
        let current = try server.withReading(timeout: timeout) { connection in
            try writes.map { try ReplicaCatchUp.current($0.key, namespace: namespace, connection) }
        }
        for (write, held) in zip(writes, current) {
            try replica.revert(write, to: held)
            guard let reasons else { continue }
            report(.refusedByServer(key: write.key, server: self.server, reason: reasons[write.key] ?? "refused"))
        }
        state.withLock { $0.valuesReverted = true }
    }

    /// Whether the server refused what was sent, rather than failing to take it: a missing
    /// privilege or an access rule (42501), a value or key its checks or limits refuse (classes
    /// 22, 23, 54). Such a write would be refused again at every retry. A lost connection, a
    /// timeout or a server shutting down is not a refusal: the batch stays queued.
    static func isRefusal(_ error: StoreError) -> Bool {
        switch error {
        case .postgres(_, let code, _): code == "42501" || ["22", "23", "54"].contains(code.prefix(2))
        case .refused, .unrepresentable: true
        default: false
        }
    }

    private static func reason(_ error: StoreError) -> String {
        switch error {
        case .postgres(_, _, let message): message
        case .refused(_, let reason), .unrepresentable(_, let reason): reason
        default: error.description
        }
    }

    /// Reads what the server changed since the cursor and merges it; reports the local writes that
    /// lost, among the merge's and `candidates` (writes the upload did not apply). Returns
    /// whether the replica's values may have changed.
    private func catchUp(_ server: PostgresServer, candidates: [ReplicaFile.PendingWrite]) throws -> Bool {
        // The cursor this syncer last recorded, else the file's (another process on the file may
        // have moved it on since: reading from an older cursor only reads again what it merged).
        var cursor = try state.withLock({ $0.cursor }) ?? replica.syncCursor()
        if let known = cursor, known.namespace != namespace {
            throw StoreError.refused(
                key: namespace,
                reason: "the replica '\(replica.location)' mirrors namespace '\(known.namespace)', not '\(namespace)'; "
                    + "give each namespace its own replica file")
        }
        // Another server's revisions mean nothing here: read it whole.
        if cursor?.server != self.server { cursor = nil }
        let read = try server.withReading(timeout: timeout) { connection in
            try ReplicaCatchUp.read(namespace: namespace, since: cursor, connection)
        }
        catchUpReads.add(1, ordering: .relaxed)
        for event in read.events { report(event) }
        let next = ReplicaFile.SyncCursor(
            server: self.server, namespace: namespace, revision: read.revision, notifyToken: read.token, lastSynced: Date())
        // A whole read after a partial one (the server pruned tombstones past the cursor, or the
        // namespace was made again): a key the server no longer names went from it meanwhile.
        // A namespace row gone (deleted, or hidden by a revoked access rule) forgets nothing: the
        // replica keeps serving what it has, as a plain store does.
        let named =
            read.whole && read.namespaceFound && cursor != nil ? Set(read.writes.map(\.key) + read.undecodable) : nil
        let recorded = try replica.record(next, merging: read.writes, schemaVersion: read.schemaVersion, wholeExcept: named)
        state.withLock { $0.cursor = next }
        var lost = Set(recorded.lost)
        seenRevision.store(read.revision, ordering: .releasing)
        for write in candidates where !lost.contains(write.key) {
            guard let held = try replica.stamp(of: write.key) else { continue }
            if (held.stamp, held.replicaID) > (write.stamp, write.replicaID) { lost.insert(write.key) }
        }
        updateReport { report in
            for write in recorded.taken { report.received[write.key] = .some(write.value) }
            // A write the server did not apply lost, or was applied by an earlier upload of it.
            for write in candidates where report.sent[write.key]?.stamp == write.stamp {
                report.sent[write.key]?.outcome = lost.contains(write.key) ? .lost : .applied
            }
            // A pending write that a later one merged here beat before it was sent (the read a round
            // starts with, on a server the replica never read): it left the outbox unsent.
            for key in recorded.lost where report.sent[key] == nil { report.lostUnsent.insert(key) }
        }
        if let token = read.token, let listener = server.startedListener { listener.learn(token: token, for: namespace) }
        if !lost.isEmpty {
            let values = try replica.load().values
            for key in lost.sorted() { report(.lostToLaterWrite(key: key, winner: values[key])) }
        }
        let changed = !read.writes.isEmpty || !lost.isEmpty
        if changed { announceChange() }
        return changed
    }

    private func report(_ event: StoreEvent) {
        state.withLock { $0.events.append(event) }
    }
}
