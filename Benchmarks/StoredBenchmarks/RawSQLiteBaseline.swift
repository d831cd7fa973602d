import CStoredSQLite
import Foundation
import StoredKit

/// The raw-SQLite baselines: the same work done with libsqlite3 directly, as lean as it gets (one
/// key/value table, WAL, cached prepared statements), so the store's overhead over SQLite shows.
///
/// ```swift
/// let side = try RawSQLiteBaseline.autocommitUpsert(count: 60, context)
/// ```
enum RawSQLiteBaseline {
    /// Durable (`synchronous=FULL`) upserts, one autocommit transaction each, timed per write.
    static func autocommitUpsert(count: Int, _ context: RunContext) throws -> Side {
        try context.shared("raw-sqlite-upsert") {
            let database = try RawDatabase(in: try context.makeDirectory("raw-sqlite"), synchronous: "FULL")
            let upsert = try database.prepare(RawDatabase.upsertSQL)
            let clock = ContinuousClock()
            var next = 0
            return .measured(
                try context.harness.measureLatencies(count: count) {
                    next += 1
                    let start = clock.now
                    try upsert.run(key: "value", value: next)
                    return clock.now - start
                })
        }
    }

    /// `keys.count` upserts in one transaction into a fresh database, per write.
    static func bulkWrite(keys: [String], values: [Int], rounds: Int, warmUp: Bool, _ context: RunContext) throws -> Side {
        try context.shared("raw-sqlite-bulk-write-\(keys.count)") {
            .measured(
                try context.harness.measureRounds(rounds: rounds, warmUp: warmUp, operations: keys.count) {
                    let database = try RawDatabase(in: try context.makeDirectory("raw-sqlite"), synchronous: "NORMAL")
                    let upsert = try database.prepare(RawDatabase.upsertSQL)
                    let clock = ContinuousClock()
                    let start = clock.now
                    try database.execute("BEGIN IMMEDIATE")
                    for index in keys.indices { try upsert.run(key: keys[index], value: values[index]) }
                    try database.execute("COMMIT")
                    return clock.now - start
                })
        }
    }

    /// `keys.count` reads through one prepared `SELECT`, per read; checks the sum.
    static func bulkRead(keys: [String], values: [Int], _ context: RunContext) throws -> Side {
        try context.shared("raw-sqlite-bulk-read-\(keys.count)") {
            let database = try RawDatabase(in: try context.makeDirectory("raw-sqlite"), synchronous: "NORMAL")
            try database.insert(keys: keys, values: values)
            let select = try database.prepare(RawDatabase.selectSQL)
            let expected = values.reduce(0, &+)
            var sum = 0
            let figure = try context.harness.measureRounds(operations: keys.count) {
                let clock = ContinuousClock()
                let start = clock.now
                sum = 0
                for key in keys { sum &+= try select.integer(forKey: key) ?? 0 }
                return clock.now - start
            }
            guard sum == expected else { throw BenchmarkError.unexpected("raw SQLite read sum \(sum) ≠ \(expected)") }
            return .measured(figure)
        }
    }

    /// One cached prepared `SELECT` of a single integer key, per read.
    static func preparedSelect(_ context: RunContext) throws -> Side {
        let database = try RawDatabase(in: try context.makeDirectory("raw-sqlite"), synchronous: "NORMAL")
        try database.insert(keys: ["count"], values: [42])
        let select = try database.prepare(RawDatabase.selectSQL)
        return .measured(
            try context.harness.measure { count in
                for _ in 0..<count { blackHole(try select.integer(forKey: "count")) }
            })
    }

    /// Opening a database of `keyCount` mixed rows and stepping through every row, per open.
    static func fullScan(keyCount: Int, rounds: Int, _ context: RunContext) throws -> Side {
        try context.shared("raw-sqlite-scan-\(keyCount)") {
            let directory = try context.makeDirectory("raw-sqlite")
            do {
                let database = try RawDatabase(in: directory, synchronous: "NORMAL")
                let content = PreferenceContent.mixed(keyCount).foundation
                let upsert = try database.prepare(RawDatabase.upsertSQL)
                try database.execute("BEGIN IMMEDIATE")
                for (key, value) in content { try upsert.run(key: key, anyValue: value) }
                try database.execute("COMMIT")
            }
            return .measured(
                try context.harness.measureRounds(rounds: rounds, operations: 1) {
                    let clock = ContinuousClock()
                    let start = clock.now
                    let database = try RawDatabase(in: directory, synchronous: "NORMAL")
                    let rows = try database.scanAll()
                    let elapsed = clock.now - start
                    guard rows == keyCount else { throw BenchmarkError.unexpected("scan saw \(rows) of \(keyCount) rows") }
                    return withExtendedLifetime(database) { elapsed }
                })
        }
    }
}

/// A minimal libsqlite3 connection for the baselines: a `kv(key TEXT PRIMARY KEY, value)` table.
final class RawDatabase {
    static let upsertSQL = "INSERT INTO kv(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
    static let selectSQL = "SELECT value FROM kv WHERE key = ?1"

    private var handle: OpaquePointer?
    let path: String

    init(in directory: URL, synchronous: String) throws {
        path = directory.appendingPathComponent("raw.sqlite").path
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK
        else {
            defer { sqlite3_close_v2(handle) }
            throw BenchmarkError.unexpected("cannot open \(path): \(String(cString: sqlite3_errmsg(handle)))")
        }
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=\(synchronous)")
        try execute("CREATE TABLE IF NOT EXISTS kv(key TEXT PRIMARY KEY NOT NULL, value) WITHOUT ROWID")
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
            let statement
        else { throw error(sql) }
        return RawStatement(statement, database: self)
    }

    func insert(keys: [String], values: [Int]) throws {
        let upsert = try prepare(Self.upsertSQL)
        try execute("BEGIN IMMEDIATE")
        for index in keys.indices { try upsert.run(key: keys[index], value: values[index]) }
        try execute("COMMIT")
    }

    /// Reads every row's key and value; returns the row count.
    func scanAll() throws -> Int {
        let scan = try prepare("SELECT key, value FROM kv")
        return try scan.stepAll()
    }

    func error(_ what: String) -> BenchmarkError {
        .unexpected("SQLite error on \(path) (\(what)): \(String(cString: sqlite3_errmsg(handle)))")
    }
}

/// A prepared statement of ``RawDatabase``.
final class RawStatement {
    private let statement: OpaquePointer
    private let database: RawDatabase

    init(_ statement: OpaquePointer, database: RawDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit { sqlite3_finalize(statement) }

    func run(key: String, value: Int) throws {
        bind(key)
        sqlite3_bind_int64(statement, 2, Int64(value))
        try stepDone()
    }

    func run(key: String, anyValue: Any) throws {
        bind(key)
        switch anyValue {
        case let value as String: sqlite3_bind_text(statement, 2, value, -1, storedkit_sqlite_transient())
        case let value as Bool: sqlite3_bind_int64(statement, 2, value ? 1 : 0)
        case let value as Int: sqlite3_bind_int64(statement, 2, Int64(value))
        case let value as Double: sqlite3_bind_double(statement, 2, value)
        default: sqlite3_bind_null(statement, 2)
        }
        try stepDone()
    }

    func integer(forKey key: String) throws -> Int? {
        bind(key)
        defer { sqlite3_reset(statement) }
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return Int(sqlite3_column_int64(statement, 0))
        case SQLITE_DONE: return nil
        default: throw database.error("select")
        }
    }

    func stepAll() throws -> Int {
        defer { sqlite3_reset(statement) }
        var rows = 0
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                blackHole(sqlite3_column_text(statement, 0))
                switch sqlite3_column_type(statement, 1) {
                case SQLITE_INTEGER: blackHole(sqlite3_column_int64(statement, 1))
                case SQLITE_FLOAT: blackHole(sqlite3_column_double(statement, 1))
                default: blackHole(sqlite3_column_text(statement, 1))
                }
                rows += 1
            case SQLITE_DONE: return rows
            default: throw database.error("scan")
            }
        }
    }

    private func bind(_ key: String) {
        sqlite3_reset(statement)
        sqlite3_bind_text(statement, 1, key, -1, storedkit_sqlite_transient())
    }

    private func stepDone() throws {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw database.error("upsert") }
    }
}
