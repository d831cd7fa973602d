import Foundation

/// An offline replica's file as it is, read without changing it (a read-only SQLite connection:
/// no table created, no id given, nothing acknowledged), for `stored info` and `stored check`:
/// who the replica is, what it mirrors, what waits in its outbox, and what in its tables
/// contradicts itself (see ``ReplicaSchema``).
///
/// ``ReplicaFile/currentIdentity()`` gives a copied file a new id, a write; this only tells that
/// the file is a copy, by comparing the device and inode its id was given to with the file's.
///
/// ```swift
/// let replica = try ReplicaInspection(path: "/home/me/.local/state/app/prefs.replica")
/// replica?.namespace  //=> "user:42"
/// replica?.pendingWrites  //=> 2
/// replica?.problems.map(\.description)  //=> ["key 'volume': stamp_ms is text 'garbage', not a time in milliseconds"]
/// ```
package struct ReplicaInspection: Sendable {
    /// Something in the replica's tables that is not what StoredKit writes there.
    package struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// How bad it is.
        package enum Kind: Sendable, Equatable {
            /// A row that cannot be what StoredKit wrote (wrong types, a value that does not decode,
            /// a sync row naming no namespace): a hand edit or damage. Nothing should be sent.
            case damaged
            /// A stamp or time more than ``ReplicaInspection/futureLimit`` ahead of this machine's
            /// clock: a clock that ran ahead when it was written, or a hand edit. A server clamps
            /// such a stamp to its own time plus the allowed skew.
            case fromTheFuture
        }

        package var kind: Kind
        /// The key of the `replica_stamps` row, when the problem is one.
        package var key: String?
        /// The table, and what is wrong.
        package var table: String
        package var what: String

        package var description: String {
            (key.map { "key '\($0)' (\(table))" } ?? table) + ": " + what
        }
    }

    /// How far ahead of this machine's clock a stamp may be before it is called from the future.
    package static let futureLimit: TimeInterval = 86_400

    package let path: String
    /// The id in the file's `replica` row (nil: none yet); when ``belongsToFile`` is false it is
    /// the id of the file this one was copied from.
    package var recordedID: String?
    /// Whether the `replica` row was written for this very file (its device and inode).
    package var belongsToFile = false
    /// The id the row says the replica was copied from.
    package var recordedCopiedFrom: String?
    /// The server (without its password) and namespace the replica mirrors; nil before it first synced.
    package var server: String?
    package var namespace: String?
    /// The server's revision the replica has read up to.
    package var revision: Int64?
    package var lastSynced: Date?
    /// How many local writes wait for a server, and when the oldest was queued.
    package var pendingWrites = 0
    package var oldestPendingWrite: Date?
    /// What contradicts itself, table by table, key by key.
    package var problems: [Problem] = []

    /// This file's replica id; nil when it has none yet (a copy takes its own at its next open).
    package var replicaID: String? { belongsToFile ? recordedID : nil }

    /// The id of the replica this file was copied from: recorded at the copy's first open, or
    /// read off a copy not opened since (its row still names the original).
    package var copiedFrom: String? { belongsToFile ? recordedCopiedFrom : recordedID }

    /// Whether the SQLite file at `path` holds a replica's tables; false for any other file.
    ///
    /// ```swift
    /// ReplicaInspection.isReplica(path: "prefs.sqlite")  //=> false
    /// ```
    package static func isReplica(path: String) -> Bool {
        guard let connection = try? SQLiteConnection(path: path, readOnly: true) else { return false }
        return (try? connection.scalar(Self.replicaTables)) == .integer(1)
    }

    /// Reads the replica at `path`; nil when the file holds no replica tables. `now` is what
    /// "from the future" is measured against.
    package init?(path: String, now: Date = Date()) throws {
        self.path = path
        let connection = try SQLiteConnection(path: path, readOnly: true)
        let tables = try Self.tables(connection)
        guard tables.contains("replica_stamps") || tables.contains("replica_sync") else { return nil }
        let problems = try connection.transaction {
            for table in ["replica", "replica_stamps", "replica_sync"] where !tables.contains(table) {
                self.problems.append(
                    Problem(kind: .damaged, table: table, what: "the table is missing, though the other replica tables are there")
                )
            }
            if tables.contains("replica") { try readIdentity(connection) }
            if tables.contains("replica_sync") { try readSync(connection, now: now) }
            if tables.contains("replica_stamps") { try readStamps(connection, now: now) }
            return self.problems
        }
        self.problems = problems
    }

    static let replicaTables = """
        SELECT count(*) >= 1 FROM sqlite_schema WHERE type = 'table' AND name IN ('replica_stamps', 'replica_sync')
        """

    private static func tables(_ connection: SQLiteConnection) throws -> Set<String> {
        var names: Set<String> = []
        try connection.withStatement("SELECT name FROM sqlite_schema WHERE type = 'table'") { statement in
            while try statement.step() { names.insert(statement.text(at: 0)) }
        }
        return names
    }

    // MARK: The tables

    private mutating func readIdentity(_ connection: SQLiteConnection) throws {
        let file = try FileIdentity.of(path: path)
        var rows = 0
        try connection.withStatement("SELECT replica_id, file_device, file_inode, copied_from FROM replica") { statement in
            while try statement.step() {
                rows += 1
                let (id, device, inode, copied) = (
                    statement.value(at: 0), statement.value(at: 1), statement.value(at: 2), statement.value(at: 3)
                )
                guard case .text(let text) = id, !text.isEmpty else {
                    problems.append(damaged("replica", "replica_id is \(id.summary), not the replica's id"))
                    continue
                }
                recordedID = text
                guard case .integer(let deviceNumber) = device, case .integer(let inodeNumber) = inode else {
                    problems.append(
                        damaged("replica", "file_device and file_inode are \(device.summary) and \(inode.summary), not numbers"))
                    continue
                }
                belongsToFile =
                    file?.device == UInt64(bitPattern: deviceNumber) && file?.inode == UInt64(bitPattern: inodeNumber)
                switch copied {
                case .null: recordedCopiedFrom = nil
                case .text(let original): recordedCopiedFrom = original
                default: problems.append(damaged("replica", "copied_from is \(copied.summary), not a replica id"))
                }
            }
        }
        if rows > 1 { problems.append(damaged("replica", "it has \(rows) rows; a replica has one identity")) }
    }

    private mutating func readSync(_ connection: SQLiteConnection, now: Date) throws {
        var rows = 0
        try connection.withStatement(ReplicaSchema.selectSync) { statement in
            while try statement.step() {
                rows += 1
                let (server, namespace, revision, token, last) = (
                    statement.value(at: 0), statement.value(at: 1), statement.value(at: 2), statement.value(at: 3),
                    statement.value(at: 4)
                )
                if case .text(let text) = namespace, !text.isEmpty {
                    self.namespace = text
                } else {
                    problems.append(
                        damaged("replica_sync", "the sync row names no namespace (namespace is \(namespace.summary))"))
                }
                if case .text(let text) = server, !text.isEmpty {
                    self.server = text
                } else {
                    problems.append(damaged("replica_sync", "the sync row names no server (server is \(server.summary))"))
                }
                if case .integer(let number) = revision, number >= 0 {
                    self.revision = number
                } else {
                    problems.append(damaged("replica_sync", "revision is \(revision.summary), not a revision of the server's"))
                }
                switch token {
                case .null, .text: break
                default: problems.append(damaged("replica_sync", "notify_token is \(token.summary), not a token"))
                }
                switch Self.time(last) {
                case .none: problems.append(damaged("replica_sync", "last_synced is \(last.summary), not a time"))
                case .some(let date?) where date.timeIntervalSince(now) > Self.futureLimit:
                    problems.append(
                        Problem(
                            kind: .fromTheFuture, table: "replica_sync",
                            what: "last_synced is \(Self.shown(date)), more than a day ahead of this machine's clock"))
                    lastSynced = date
                case .some(let date): lastSynced = date
                }
            }
        }
        if rows > 1 { problems.append(damaged("replica_sync", "it has \(rows) rows; a replica mirrors one namespace")) }
    }

    private mutating func readStamps(_ connection: SQLiteConnection, now: Date) throws {
        let sql = """
            SELECT s.key, s.stamp_ms, s.stamp_counter, s.replica_id, s.queued_at, s.migration, p.type, p.value,
                p.key IS NOT NULL
                FROM replica_stamps AS s LEFT JOIN preferences AS p ON p.key = s.key
            """
        let horizon = (now.timeIntervalSince1970 + Self.futureLimit) * 1000
        try connection.withStatement(sql) { statement in
            while try statement.step() {
                let keyColumn = statement.value(at: 0)
                guard case .text(let key) = keyColumn else {
                    problems.append(damaged("replica_stamps", "a row's key is \(keyColumn.summary), not text"))
                    continue
                }
                func problem(_ what: String, _ kind: Problem.Kind = .damaged) {
                    problems.append(Problem(kind: kind, key: key, table: "replica_stamps", what: what))
                }
                let (ms, counter, replica, queued, migration) = (
                    statement.value(at: 1), statement.value(at: 2), statement.value(at: 3), statement.value(at: 4),
                    statement.value(at: 5)
                )
                if case .integer(let milliseconds) = ms, milliseconds >= 0 {
                    if Double(milliseconds) > horizon {
                        problem(
                            "stamped \(Self.shown(Date(timeIntervalSince1970: Double(milliseconds) / 1000))), more than a day "
                                + "ahead of this machine's clock: the write would beat every later one",
                            .fromTheFuture)
                    }
                } else {
                    problem("stamp_ms is \(ms.summary), not a time in milliseconds")
                }
                if case .integer(let number) = counter, (0...Int64(UInt32.max)).contains(number) {
                } else {
                    problem("stamp_counter is \(counter.summary), not a counter")
                }
                if case .text(let text) = replica, !text.isEmpty {
                } else {
                    problem("replica_id is \(replica.summary), not the id of the replica that made the write")
                }
                switch migration {
                case .null: break
                case .integer(let version) where version >= 0: break
                default: problem("migration is \(migration.summary), not a schema version")
                }
                guard queued != .null else { continue }
                // An outbox entry: a local write waiting to be sent.
                guard let queuedAt = Self.time(queued) ?? nil else {
                    problem("queued_at is \(queued.summary), not the time the write was queued")
                    continue
                }
                pendingWrites += 1
                if oldestPendingWrite.map({ queuedAt < $0 }) ?? true { oldestPendingWrite = queuedAt }
                if queuedAt.timeIntervalSince(now) > Self.futureLimit {
                    problem("queued \(Self.shown(queuedAt)), more than a day ahead of this machine's clock", .fromTheFuture)
                }
                // A value row must decode to be sent; without one the entry is a removal.
                guard statement.integer(at: 8) != 0 else { continue }
                let type = statement.value(at: 6)
                guard case .text = type else {
                    problem("the outbox holds its write, but the value's type is \(type.summary)")
                    continue
                }
                let kind = statement.withBytes(at: 6) { SQLiteValueColumns.Kind($0) }
                if SQLiteValueColumns.value(kind: kind, column: statement.value(at: 7)) == nil {
                    problem(
                        "the outbox holds its write, but the value (\(type.summary), \(statement.value(at: 7).summary)) "
                            + "does not decode, so it cannot be sent")
                }
            }
        }
    }

    // MARK: Helpers

    private func damaged(_ table: String, _ what: String) -> Problem {
        Problem(kind: .damaged, table: table, what: what)
    }

    /// A time column (seconds since 1970): nil when it is not one, `.some(nil)` when NULL.
    private static func time(_ value: SQLiteColumnValue) -> Date?? {
        switch value {
        case .null: .some(nil)
        case .real(let seconds) where seconds.isFinite && seconds >= 0: Date(timeIntervalSince1970: seconds)
        case .integer(let seconds) where seconds >= 0: Date(timeIntervalSince1970: Double(seconds))
        default: nil
        }
    }

    private static func shown(_ date: Date) -> String { date.formatted(.iso8601) }
}
