internal import CStoredSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One open SQLite database handle with a cache of prepared statements.
///
/// Not thread-safe on its own: ``SQLiteBackend`` only touches it while holding its mutex, so
/// the handle is opened in SQLite's multi-thread mode (no SQLite-level mutex).
final class SQLiteConnection {
    /// The oldest library with STRICT tables (3.37.0), which the schema relies on.
    static let minimumVersion: (number: Int32, text: String) = (3_037_000, "3.37.0")
    /// How long a statement waits for another connection's lock before failing with SQLITE_BUSY.
    static let busyTimeoutMilliseconds: Int32 = 5000
    /// Pages the write-ahead log holds before SQLite copies them into the database.
    static let checkpointPages = 32
    /// The size a larger write-ahead log is trimmed to once its pages are in the database.
    static let writeAheadLogLimit = 1 << 20

    let path: String
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// The last `PRAGMA synchronous` we set, so it is only issued when it changes.
    private(set) var synchronous: String?

    /// Throws ``StoreError/unsupportedSQLite(found:required:)`` when the runtime library is too old.
    static func checkLibraryVersion() throws {
        guard sqlite3_libversion_number() >= minimumVersion.number else {
            throw StoreError.unsupportedSQLite(found: String(cString: sqlite3_libversion()), required: minimumVersion.text)
        }
    }

    /// Opens (and, unless `readOnly`, creates) the database file at `path`.
    init(path: String, readOnly: Bool = false) throws {
        self.path = path
        var opened: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let code = sqlite3_open_v2(path, &opened, access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        guard code == SQLITE_OK, let opened else {
            let error =
                Self.creationError(path: path, readOnly: readOnly)
                ?? Self.error(code, handle: opened, path: path, while: "opening the database")
            sqlite3_close_v2(opened)
            throw error
        }
        handle = opened
        // Not sqlite3_busy_timeout: it sleeps ever longer (up to 100 ms) between tries, so one of
        // several busy writers can miss every release for the whole timeout (seen with 8 processes
        // updating one key). Short jittered sleeps give each waiter a fair chance in the same time.
        sqlite3_busy_handler(
            handle,
            { _, attempts in
                guard attempts < SQLiteConnection.busyTimeoutMilliseconds / 2 else { return 0 }
                usleep(UInt32.random(in: 1_000...3_000))  // 2 ms on average
                return 1
            }, nil)
    }

    /// SQLite retries a failed create read-only and reports that attempt's ENOENT; the real
    /// cause of not being able to create a new file is the directory's permission.
    private static func creationError(path: String, readOnly: Bool) -> StoreError? {
        guard !readOnly, !FileManager.default.fileExists(atPath: path),
            let code = FileSystem.reasonFilesCannotBeCreated(in: SystemCall.directory(of: path))
        else { return nil }
        return .io(path: path, operation: "create the database in its directory", errno: code)
    }

    deinit {
        for statement in statements.values { statement.finalize() }
        sqlite3_close_v2(handle)
    }

    /// Keeps the write-ahead log small, so that most durable commits overwrite blocks the log
    /// already has, which is what makes one cost little more than a raw `fsync`.
    ///
    /// A commit appends to the log and syncs it. Appending past the end of the file makes the
    /// file system allocate blocks and record the new size, so `fdatasync` also commits its
    /// journal (about 1.7x a plain `pwrite` + `fsync` here). After a checkpoint SQLite writes the
    /// log from its start again, over blocks that exist, and the sync flushes data only. With a
    /// checkpoint every 32 pages, a process's first 32 commits grow the log and the rest reuse
    /// it; each checkpoint (two more syncs) is shared by 32 commits. A log that a large
    /// transaction grew is trimmed back to 1 MiB. (Keeping the log between processes would spare
    /// the first 32 too, but SQLite then copies the kept pages into the file again at every
    /// close, with three syncs.)
    func limitWriteAheadLog() throws {
        sqlite3_wal_autocheckpoint(handle, Int32(Self.checkpointPages))
        try execute("PRAGMA journal_size_limit = \(Self.writeAheadLogLimit)")
    }

    /// Copies the write-ahead log into the database file and empties it (`wal_checkpoint(TRUNCATE)`);
    /// returns whether it completed. For a file that was deleted or replaced by a rename: SQLite
    /// skips its checkpoint at close for a file that moved and leaves the log at the old name, where
    /// the next open would apply it to whatever file has that name now.
    @discardableResult
    func emptyWriteAheadLog() -> Bool {
        guard case .integer(let busy) = try? scalar("PRAGMA wal_checkpoint(TRUNCATE)") else { return false }
        return busy == 0
    }

    // MARK: Running SQL

    /// Runs one or more statements that return no rows (schema, BEGIN, COMMIT).
    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, while: "running \(sql.prefix(60))") }
    }

    /// How ``transaction(_:_:)`` begins.
    enum TransactionKind: String {
        /// `BEGIN`: a read snapshot, upgraded to a write by the first write.
        case deferred = "BEGIN"
        /// `BEGIN IMMEDIATE`: takes the write lock first, so a read-modify-write cannot be overtaken.
        case immediate = "BEGIN IMMEDIATE"
    }

    /// Runs `body` in one transaction and commits it; a throw (from `body` or from `COMMIT`)
    /// rolls everything back and is rethrown.
    ///
    /// ```swift
    /// let count = try connection.transaction(.immediate) { try connection.scalar("SELECT count(*) FROM preferences") }
    /// ```
    func transaction<Result>(_ kind: TransactionKind = .deferred, _ body: () throws -> Result) throws -> Result {
        try run(kind.rawValue)
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// Runs one frequent statement that returns no rows (BEGIN, COMMIT) from the statement cache.
    func run(_ sql: String) throws {
        try withStatement(sql) { statement in try statement.run() }
    }

    /// Whether SQLite will refuse writes to the file: opened read-only (its permissions), or its
    /// header asks for a newer write format. Known only once a transaction has read the header.
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Runs `body` with the cached prepared statement for `sql`, reset afterwards for reuse.
    func withStatement<Result>(_ sql: String, _ body: (SQLiteStatement) throws -> Result) throws -> Result {
        let statement = try prepared(sql)
        defer { statement.reset() }
        return try body(statement)
    }

    /// The first column of the first row of `sql`, or nil when it returns no row.
    func scalar(_ sql: String) throws -> SQLiteColumnValue? {
        try withStatement(sql) { statement in try statement.step() ? statement.value(at: 0) : nil }
    }

    /// Reads an integer pragma such as `data_version` or `user_version`.
    func integerPragma(_ name: String) throws -> Int64 {
        guard case .integer(let value) = try scalar("PRAGMA \(name)") else {
            throw StoreError.sqlite(path: path, code: SQLITE_MISMATCH, message: "PRAGMA \(name) did not return an integer")
        }
        return value
    }

    /// A counter that changes whenever another connection (in any process) commits.
    func dataVersion() throws -> Int64 {
        try integerPragma("data_version")
    }

    /// Sets `PRAGMA synchronous` (`NORMAL` or `FULL`) unless it is already set; outside transactions only.
    func setSynchronous(_ level: String) throws {
        guard synchronous != level else { return }
        try execute("PRAGMA synchronous = \(level)")
        synchronous = level
    }

    /// Rolls back the open transaction, if any; used on error paths, where a second error would hide the first.
    func rollback() {
        if sqlite3_get_autocommit(handle) == 0 { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    /// `PRAGMA quick_check`: an empty list when the file is sound, else SQLite's findings.
    func quickCheck() throws -> [String] {
        var findings: [String] = []
        try withStatement("PRAGMA quick_check") { statement in
            while try statement.step() { findings.append(statement.text(at: 0)) }
        }
        return findings == ["ok"] ? [] : findings
    }

    /// Flushes the write-ahead log to disk: makes a commit made at `synchronous=NORMAL` durable.
    /// Without a log nothing is pending: a checkpoint already synced the database.
    func syncWriteAheadLog() throws {
        try FileSystem.sync(path + "-wal")
    }

    private func prepared(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        var pointer: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard code == SQLITE_OK, let pointer else { throw error(code, while: "preparing \(sql.prefix(60))") }
        let statement = SQLiteStatement(pointer: pointer, connection: self)
        statements[sql] = statement
        return statement
    }

    // MARK: Errors

    /// The typed error for result `code`, naming the file and what was being done.
    func error(_ code: Int32, while activity: String) -> StoreError {
        Self.error(code, handle: handle, path: path, while: activity)
    }

    /// SQLite opens a file whose header asks for a write format above 2 (byte 18: a newer SQLite
    /// wrote it, or a bit flipped) for reading only, and a write then fails as "readonly": say
    /// that, rather than blame the permissions.
    private static func newerWriteFormat(path: String) -> String? {
        let header = FileSystem.firstBytes(of: path, count: 19)
        guard header.count == 19, header[18] > 2 else { return nil }
        return "; its header asks for write format \(header[18]), which this SQLite (\(String(cString: sqlite3_libversion()))) "
            + "can only read: write it with a newer SQLite, or, if the file is damaged, move it aside or restore a backup"
    }

    private static func error(_ code: Int32, handle: OpaquePointer?, path: String, while activity: String) -> StoreError {
        let primary = SQLiteResultCode(code).primary
        let systemErrno = handle.map { sqlite3_system_errno($0) } ?? 0
        if primary == SQLITE_CANTOPEN && systemErrno != 0 {
            return .io(path: path, operation: "open the database", errno: systemErrno)
        }
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        let advice: String =
            switch primary {
            case SQLITE_BUSY:
                "; another connection held the database longer than \(busyTimeoutMilliseconds / 1000) s, retry later"
            case SQLITE_READONLY: newerWriteFormat(path: path) ?? "; check the permissions of the file and its directory"
            case SQLITE_FULL: "; free some disk space"
            case SQLITE_CORRUPT, SQLITE_NOTADB: "; move the file aside or restore a backup"
            default: ""
            }
        return .sqlite(path: path, code: code, message: "\(message) while \(activity)\(advice)")
    }
}
