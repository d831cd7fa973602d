internal import CStoredSQLite

/// An SQLite result code as ``StoreError/sqlite(path:code:message:)`` carries it, possibly
/// extended (`SQLITE_IOERR_FSYNC` is `SQLITE_IOERR | 4 << 8`): the questions the backend asks of
/// it, so the `SQLITE_*` constants and the masking stay in the connection files.
///
/// ```swift
/// SQLiteResultCode(26).isCorruption  //=> true  (SQLITE_NOTADB)
/// SQLiteResultCode(5 | 1 << 8).isBusy  //=> true  (SQLITE_BUSY_RECOVERY)
/// ```
struct SQLiteResultCode: Equatable, Sendable {
    let rawValue: Int32

    init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code, without the extended part.
    var primary: Int32 { rawValue & 0xFF }

    /// The file is damaged (`SQLITE_CORRUPT`) or not a database at all (`SQLITE_NOTADB`).
    var isCorruption: Bool { primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB }

    /// Another connection holds a lock (`SQLITE_BUSY`).
    var isBusy: Bool { primary == SQLITE_BUSY }

    /// A string or blob beyond the library's length limit (`SQLITE_TOOBIG`), or a CHECK or NOT NULL
    /// constraint someone added (`SQLITE_CONSTRAINT`): the data was refused, not the file.
    var refusesData: Bool { primary == SQLITE_TOOBIG || primary == SQLITE_CONSTRAINT }

    /// The generic `SQLITE_ERROR`: for a statement that does not compile, a missing column or table.
    var isGenericError: Bool { primary == SQLITE_ERROR }

    /// The code that reports a damaged file (`SQLITE_CORRUPT`).
    static let corrupt = SQLiteResultCode(SQLITE_CORRUPT)

    /// The code for a value of the wrong type (`SQLITE_MISMATCH`).
    static let mismatch = SQLiteResultCode(SQLITE_MISMATCH)

    /// SQLite's English description, e.g. "file is not a database (SQLite code 26)".
    var description: String {
        "\(String(cString: sqlite3_errstr(rawValue))) (SQLite code \(rawValue))"
    }
}
