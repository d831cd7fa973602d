import Foundation
import Synchronization

/// The local half of an offline replica: a StoredKit SQLite file (so `stored` and `sqlite3` read
/// its values as any store's) that also keeps, in the same transactions as the values, each key's
/// stamp, an outbox of the local writes no server has acknowledged, and who this replica is (see
/// ``ReplicaSchema``).
///
/// Every local write is stamped (at the `set`, by the store, or here at commit) and queued in the
/// outbox durably as its batch asks, so it survives exit, `kill -9` and a reboot, and a later
/// process opening the file sends it. A write of a key whose stamp in the file is newer (a change
/// made later elsewhere, merged meanwhile) loses here already. ``merge(_:)`` takes what a server
/// holds, key by key: the higher (stamp, replica id) wins, removals included.
///
/// A file copied or restored from a backup is not its original: the replica id belongs to the
/// file it was given to (device and inode), so the copy takes a new one and says which it was
/// copied from.
///
/// ```swift
/// let replica = ReplicaFile(at: URL(filePath: "/home/me/.local/state/app/prefs.replica.sqlite"))
/// let store = try PreferenceStore(replica)
/// store.set(2, forKey: "volume")
/// try store.flush()
/// try replica.pendingWrites().map(\.key)  //=> ["volume"]
/// ```
package final class ReplicaFile: Backend {
    /// The SQLite store underneath: the values, in the file's own tables.
    package let sqlite: SQLiteBackend
    private let clock: HybridLogicalClock
    private let identity = Mutex<Identity?>(nil)
    /// Whether a transaction of the syncer's (an acknowledgement, a merge, the identity's) found
    /// another instance's commit, or merged values, since the store last read: the next
    /// ``commit(_:)`` must return fresh data then, as a plain SQLite store's does, though its own
    /// transaction finds the file as the syncer's left it.
    private let changedUntold = Mutex(false)

    /// Who the replica is, as the file says.
    package struct Identity: Sendable, Equatable {
        /// The replica's random id: the tie-break between equal stamps, and the outbox's name on a server.
        package var replicaID: String
        /// The id of the replica this file was copied from, when it was (nil: the original).
        package var copiedFrom: String?
        /// The file the id was given to (device and inode).
        var device: UInt64
        var inode: UInt64

        /// Whether `file` is the one this id was given to.
        func belongs(to file: FileIdentity?) -> Bool { file?.device == device && file?.inode == inode }
    }

    /// A write a server has not acknowledged yet: the key's value and stamp as they are now.
    package struct PendingWrite: Sendable, Equatable {
        package var key: String
        /// The value to send; nil sends a removal.
        package var value: StoredValue?
        package var stamp: HybridTimestamp
        /// The replica that made the write (this one, or the one this file was copied from).
        package var replicaID: String
        package var queuedAt: Date
        /// The schema version of the migration that made the write; nil for the app's own writes.
        package var migration: Int? = nil
    }

    /// A key's value as another replica or a server holds it, with its stamp.
    package struct RemoteWrite: Sendable, Equatable {
        package var key: String
        /// nil: removed.
        package var value: StoredValue?
        package var stamp: HybridTimestamp
        package var replicaID: String

        /// A remote write of `key`.
        package init(key: String, value: StoredValue?, stamp: HybridTimestamp, replicaID: String) {
            self.key = key
            self.value = value
            self.stamp = stamp
            self.replicaID = replicaID
        }
    }

    /// A replica in the SQLite file at `url` (created when missing), whose writes `clock` stamps.
    package init(at url: URL, corruption: CorruptionPolicy = .quarantine, clock: HybridLogicalClock = HybridLogicalClock()) {
        sqlite = SQLiteBackend(at: url, corruption: corruption)
        self.clock = clock
    }

    package var location: String { sqlite.location }

    /// The clock the store stamps each `set` with; it resumes past every stamp the file holds.
    package var writeClock: HybridLogicalClock? { clock }

    /// Reads the values, and makes sure the file knows who it is (a copy takes a new id here).
    package func load() throws -> BackendSnapshot {
        changedUntold.withLock { $0 = false }
        let snapshot = try sqlite.load()
        _ = try currentIdentity()
        return snapshot
    }

    package func validate(_ value: StoredValue, forKey key: String) throws {
        try sqlite.validate(value, forKey: key)
    }

    /// Commits the batch with its stamps and outbox entries in one transaction. A key whose stamp
    /// in the file is newer than the write's (merged from elsewhere after the `set`) keeps the
    /// newer value: the fresh snapshot then shows it.
    package func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        var carried: [String: (HybridTimestamp, String)] = [:]
        let (lost, changedElsewhere) = try sqlite.withCompanionTransaction(
            durability: changes.durability,
            decide: { _, connection in
                let stamped = try stampedLocal(changes, connection)
                carried = stamped.carried
                return (stamped.changes, stamped.lost)
            },
            record: { changes, connection in try recordLocal(changes, carried: carried, connection) })
        let untold = changedUntold.withLock { untold in
            defer { untold = false }
            return untold
        }
        return lost || changedElsewhere || untold ? try sqlite.load() : nil
    }

    /// A transaction of the syncer's: what it learns of other instances' commits is kept for the
    /// next ``commit(_:)`` (see ``changedUntold``), with `changedValues` (a merge that took values).
    func syncTransaction<R>(
        durability: Durability, changedValues: (R) -> Bool = { _ in false },
        decide: (BackendSnapshot, SQLiteConnection) throws -> (BackendChanges, R),
        record: (BackendChanges, SQLiteConnection) throws -> Void
    ) throws -> R {
        let (result, changedElsewhere) = try sqlite.withCompanionTransaction(
            durability: durability, decide: decide, record: record)
        if changedElsewhere || changedValues(result) { changedUntold.withLock { $0 = true } }
        return result
    }

    package func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        var carried: [String: (HybridTimestamp, String)] = [:]
        return try sqlite.withCompanionTransaction(
            durability: .deferred,  // the body's batch says; an immediate one is synced after its commit
            decide: { snapshot, connection in
                let (changes, value) = try body(snapshot)
                let stamped = try stampedLocal(changes, connection)
                carried = stamped.carried
                return (stamped.changes, value)
            },
            record: { changes, connection in try recordLocal(changes, carried: carried, connection) }
        ).result
    }

    package func startWatching(_ onChange: @escaping @Sendable () -> Void) throws {
        try sqlite.startWatching(onChange)
    }

    package func stopWatching() {
        sqlite.stopWatching()
    }

    // MARK: The outbox

    /// The oldest `limit` writes the server has not acknowledged, in the order they were made.
    package func pendingWrites(limit: Int = 1_000) throws -> [PendingWrite] {
        try sqlite.withCompanionReading { connection in
            guard try hasTables(connection) else { return [] }
            var writes: [PendingWrite] = []
            try connection.withStatement(ReplicaSchema.pending) { statement in
                try statement.bind(.integer(Int64(limit)))
                while try statement.step() {
                    var value: StoredValue?
                    if case .text = statement.value(at: 5) {
                        let kind = statement.withBytes(at: 5) { SQLiteValueColumns.Kind($0) }
                        // A row that does not decode cannot be sent: it stays local, as a store leaves it.
                        guard let decoded = SQLiteValueColumns.value(kind: kind, column: statement.value(at: 6)) else { continue }
                        value = decoded
                    }
                    let stamp = HybridTimestamp(
                        milliseconds: statement.integer(at: 2), counter: UInt32(clamping: statement.integer(at: 3)))
                    writes.append(
                        PendingWrite(
                            key: statement.text(at: 0), value: value, stamp: stamp, replicaID: statement.text(at: 4),
                            queuedAt: Date(timeIntervalSince1970: Self.real(statement.value(at: 1))),
                            migration: statement.value(at: 7) == .null ? nil : Int(statement.integer(at: 7))))
                }
            }
            return writes
        }
    }

    /// How many writes wait for a server, and when the oldest of them was queued.
    package func pendingSummary() throws -> (count: Int, oldest: Date?) {
        try sqlite.withCompanionReading { connection in
            guard try hasTables(connection) else { return (0, nil) }
            return try connection.withStatement(ReplicaSchema.pendingSummary) { statement in
                guard try statement.step() else { return (0, nil) }
                let oldest = statement.value(at: 1)
                return (Int(statement.integer(at: 0)), oldest == .null ? nil : Date(timeIntervalSince1970: Self.real(oldest)))
            }
        }
    }

    /// Drops the outbox entries stamped up to `stamp`, which a server has recorded. A key written
    /// again since has a later stamp and stays.
    package func acknowledge(through stamp: HybridTimestamp) throws {
        try syncTransaction(
            durability: .deferred, decide: { _, _ in (BackendChanges(), ()) },
            record: { _, connection in
                try connection.withStatement(ReplicaSchema.acknowledge) { statement in
                    try statement.bind(.integer(stamp.milliseconds), .integer(Int64(stamp.counter)))
                    try statement.run()
                }
            })
    }

    /// Takes what another replica or a server holds: each write whose (stamp, replica id) is above
    /// the file's for its key replaces the local value (a removal removes it), and a pending local
    /// write of that key, which lost, leaves the outbox. The clock moves past every stamp seen.
    /// Returns the keys whose pending local write lost.
    @discardableResult
    package func merge(_ remote: [RemoteWrite]) throws -> [String] {
        try merge(remote, schemaVersion: nil, alongside: { _ in }).lost
    }

    /// ``merge(_:)``, raising the file's schema version to `schemaVersion`, with `alongside` run in
    /// the same transaction. Returns the keys whose pending local write lost, and the writes the
    /// file took (each key's winner: what a sync report calls received).
    func merge(
        _ remote: [RemoteWrite], schemaVersion: Int?, alongside: (SQLiteConnection) throws -> Void
    ) throws -> (lost: [String], taken: [RemoteWrite]) {
        var winners: [String: RemoteWrite] = [:]
        let lost = try syncTransaction(
            durability: .deferred, changedValues: { _ in !winners.isEmpty },
            decide: { snapshot, connection in
                _ = try identityWithin(connection)  // a file merged into before its first load: its tables
                var changes = BackendChanges()
                if let schemaVersion, schemaVersion > snapshot.schemaVersion { changes.schemaVersion = schemaVersion }
                var lost: [String] = []
                for write in remote {
                    clock.witness(write.stamp)
                    let held = try heldStamp(of: write.key, connection)
                    if let held, (write.stamp, write.replicaID) <= (held.stamp, held.replicaID) { continue }
                    if let current = winners[write.key], (write.stamp, write.replicaID) <= (current.stamp, current.replicaID) {
                        continue
                    }
                    winners[write.key] = write
                    changes.values[write.key] = .some(write.value)
                    if held?.queued == true, !lost.contains(write.key) { lost.append(write.key) }
                }
                return (changes, lost.sorted())
            },
            record: { _, connection in
                for write in winners.values {
                    try upsertStamp(write.key, write.stamp, write.replicaID, queuedAt: nil, connection)  // out of the outbox
                }
                try alongside(connection)
            }
        )
        return (lost, winners.values.sorted { $0.key < $1.key })
    }

    // MARK: Identity

    /// The file's identity, established once per file: a new file gets an id, a copy a new one.
    package func currentIdentity() throws -> Identity {
        let file = try FileIdentity.of(path: sqlite.path)
        if let known = identity.withLock({ $0 }), known.belongs(to: file) { return known }
        let established = try syncTransaction(
            durability: .immediate, decide: { _, connection in (BackendChanges(), try establishIdentity(connection)) },
            record: { _, _ in })
        identity.withLock { $0 = established }
        return established
    }

    /// Reads (or gives) the id inside a write transaction, and moves the clock past the file's stamps.
    private func establishIdentity(_ connection: SQLiteConnection) throws -> Identity {
        if try !hasTables(connection) { try connection.execute(ReplicaSchema.create) }
        guard let file = try FileIdentity.of(path: sqlite.path) else {
            throw StoreError.io(path: sqlite.path, operation: "identify the replica file", errno: ENOENT)
        }
        let row = try connection.withStatement(ReplicaSchema.selectReplica) { statement -> (String, UInt64, UInt64, String?)? in
            guard try statement.step() else { return nil }
            let copiedFrom = statement.value(at: 3) == .null ? nil : statement.text(at: 3)
            return (
                statement.text(at: 0), UInt64(bitPattern: statement.integer(at: 1)), UInt64(bitPattern: statement.integer(at: 2)),
                copiedFrom
            )
        }
        // The newest stamp in the file is at or above every stamp this replica handed out: resuming
        // past it keeps the order across restarts, whatever the wall clock says now.
        if let newest = try connection.withStatement(
            ReplicaSchema.newestStamp,
            { statement in
                try statement.step()
                    ? HybridTimestamp(milliseconds: statement.integer(at: 0), counter: UInt32(clamping: statement.integer(at: 1)))
                    : nil
            })
        {
            clock.witness(newest)
        }
        if let row, row.1 == file.device, row.2 == file.inode {
            return Identity(replicaID: row.0, copiedFrom: row.3, device: file.device, inode: file.inode)
        }
        // A new file, or one whose id was given to another file: this one is a copy (or a restored backup).
        let identity = Identity(
            replicaID: UUID().uuidString.lowercased(), copiedFrom: row?.0, device: file.device, inode: file.inode)
        try connection.withStatement(ReplicaSchema.giveIdentity) { statement in
            try statement.bind(
                .text(identity.replicaID), .integer(Int64(bitPattern: file.device)), .integer(Int64(bitPattern: file.inode)),
                identity.copiedFrom.map { .text($0) } ?? .null)
            try statement.run()
        }
        return identity
    }

    // MARK: Internals

    /// `changes` with every key stamped (a stamp the store took at the `set`, or one taken now),
    /// less the writes that a newer stamp in the file beats; whether there was such a write; and
    /// the stamp and replica of the source of each value a migration carried over
    /// (``BackendChanges/carriedFrom``), which the value keeps.
    private func stampedLocal(_ changes: BackendChanges, _ connection: SQLiteConnection) throws -> (
        changes: BackendChanges, lost: Bool, carried: [String: (HybridTimestamp, String)]
    ) {
        let me = try identityWithin(connection)
        var kept = changes
        var lost = false
        var carried: [String: (HybridTimestamp, String)] = [:]
        for (key, source) in changes.carriedFrom {
            if let held = try heldStamp(of: source, connection) { carried[key] = (held.stamp, held.replicaID) }
        }
        for key in changes.values.keys {
            let held = try heldStamp(of: key, connection)
            // A stamp taken here, under the file's write lock, is of a write made after seeing what
            // the file holds (an `update`'s body read it): it must be above the key's stamp, which
            // another instance on this file may have taken with a clock of its own a moment ago.
            // A value a migration carried over keeps its source's stamp instead.
            let stamp = carried[key]?.0 ?? changes.stamps[key] ?? held.map { clock.witness($0.stamp) } ?? clock.tick()
            let replica = carried[key]?.1 ?? me.replicaID
            if let held, (stamp, replica) < (held.stamp, held.replicaID) {
                kept.values.removeValue(forKey: key)
                kept.stamps.removeValue(forKey: key)
                lost = true
                continue
            }
            kept.stamps[key] = stamp
        }
        return (kept, lost, carried)
    }

    /// Writes the stamps of a local batch, each key queued in the outbox: one row per key. A
    /// migration's batch (one with a schema version) marks its entries with that version.
    private func recordLocal(
        _ changes: BackendChanges, carried: [String: (HybridTimestamp, String)], _ connection: SQLiteConnection
    ) throws {
        guard !changes.values.isEmpty else { return }
        let me = try identityWithin(connection)
        let now = Date().timeIntervalSince1970
        for key in changes.values.keys {
            try upsertStamp(
                key, changes.stamps[key] ?? clock.tick(), carried[key]?.1 ?? me.replicaID, queuedAt: now,
                migration: changes.schemaVersion, connection)
        }
    }

    /// The identity inside a transaction that may be the file's first, or a copy's.
    func identityWithin(_ connection: SQLiteConnection) throws -> Identity {
        let file = try FileIdentity.of(path: sqlite.path)
        if let known = identity.withLock({ $0 }), known.belongs(to: file) { return known }
        let established = try establishIdentity(connection)
        identity.withLock { $0 = established }
        return established
    }

    func hasTables(_ connection: SQLiteConnection) throws -> Bool {
        try connection.scalar(ReplicaSchema.hasTables) == .integer(1)
    }

    /// The key's stamp in the file, who made it, and whether its local write waits in the outbox.
    func heldStamp(
        of key: String, _ connection: SQLiteConnection
    ) throws -> (stamp: HybridTimestamp, replicaID: String, queued: Bool)? {
        try connection.withStatement(ReplicaSchema.selectStamp) { statement in
            try statement.bind(.text(key))
            guard try statement.step() else { return nil }
            return (
                HybridTimestamp(milliseconds: statement.integer(at: 0), counter: UInt32(clamping: statement.integer(at: 1))),
                statement.text(at: 2), statement.integer(at: 3) != 0
            )
        }
    }

    func upsertStamp(
        _ key: String, _ stamp: HybridTimestamp, _ replica: String, queuedAt: Double?, migration: Int? = nil,
        _ connection: SQLiteConnection
    ) throws {
        try connection.withStatement(ReplicaSchema.upsertStamp) { statement in
            try statement.bind(
                .text(key), .integer(stamp.milliseconds), .integer(Int64(stamp.counter)), .text(replica),
                queuedAt.map { .real($0) } ?? .null, migration.map { .integer(Int64($0)) } ?? .null)
            try statement.run()
        }
    }

    static func real(_ value: SQLiteColumnValue) -> Double {
        switch value {
        case .real(let number): number
        case .integer(let number): Double(number)
        default: 0
        }
    }
}
