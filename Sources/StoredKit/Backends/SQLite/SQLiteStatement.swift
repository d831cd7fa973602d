internal import CStoredSQLite
import Foundation

/// One value of an SQLite column, in SQLite's own five storage classes.
enum SQLiteColumnValue: Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case null

    /// A short rendering for messages, e.g. `text 'abc'`.
    var summary: String {
        switch self {
        case .integer(let number): "integer \(number)"
        case .real(let number): "real \(number)"
        case .text(let text): "text '\(text.prefix(40))'"
        case .blob(let data): "blob of \(data.count) bytes"
        case .null: "null"
        }
    }
}

/// A prepared statement owned and cached by a ``SQLiteConnection``.
///
/// Binding copies the bytes (`SQLITE_TRANSIENT`) and passes explicit lengths, so strings with
/// embedded NUL characters survive. Callers reset it through ``SQLiteConnection/withStatement(_:_:)``.
final class SQLiteStatement {
    private let pointer: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(pointer: OpaquePointer, connection: SQLiteConnection) {
        self.pointer = pointer
        self.connection = connection
    }

    /// Binds each value to the parameters `?1`, `?2`, … in order.
    func bind(_ values: SQLiteColumnValue...) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    func bind(_ value: SQLiteColumnValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .integer(let number): code = sqlite3_bind_int64(pointer, index, number)
        case .real(let number): code = sqlite3_bind_double(pointer, index, number)
        case .null: code = sqlite3_bind_null(pointer, index)
        case .text(var text):
            code = text.withUTF8 { buffer in
                // A nil base address would bind NULL instead of an empty string.
                guard let base = buffer.baseAddress, !buffer.isEmpty else {
                    return sqlite3_bind_text(pointer, index, "", 0, storedkit_sqlite_transient())
                }
                return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { characters in
                    sqlite3_bind_text64(
                        pointer, index, characters, UInt64(buffer.count), storedkit_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            code = data.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress, !buffer.isEmpty else { return sqlite3_bind_zeroblob(pointer, index, 0) }
                return sqlite3_bind_blob64(pointer, index, base, UInt64(buffer.count), storedkit_sqlite_transient())
            }
        }
        guard code == SQLITE_OK else { throw connection.error(code, while: "binding a parameter") }
    }

    /// Advances to the next row: true when a row is available, false when the statement is done.
    func step() throws -> Bool {
        let code = sqlite3_step(pointer)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code, while: "running \(String(cString: sqlite3_sql(pointer)).prefix(60))")
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws {
        while try step() {}
    }

    // The readers below fetch a column's `sqlite3_value` once and read it with `sqlite3_value_*`.
    // Each `sqlite3_column_*` call re-enters SQLite's API (error state, mutex hooks), which made
    // up a third of reading 10,000 rows at open. SQLite calls the value "unprotected": safe here
    // because the connection is only used under ``SQLiteBackend``'s lock, and the value is read
    // before the statement steps again.

    /// The column as an integer (0 for NULL, as SQLite converts).
    func integer(at column: Int32) -> Int64 {
        sqlite3_value_int64(sqlite3_column_value(pointer, column))
    }

    func text(at column: Int32) -> String {
        Self.text(of: sqlite3_column_value(pointer, column))
    }

    /// The column's text bytes, valid only inside `body` (no `String` is made).
    func withBytes<R>(at column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let value = sqlite3_column_value(pointer, column)
        let start = sqlite3_value_text(value)
        return body(UnsafeBufferPointer(start: start, count: Int(sqlite3_value_bytes(value))))
    }

    func value(at column: Int32) -> SQLiteColumnValue {
        let value = sqlite3_column_value(pointer, column)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT: return .text(Self.text(of: value))
        case SQLITE_BLOB:
            let bytes = sqlite3_value_blob(value)
            let count = Int(sqlite3_value_bytes(value))
            guard let bytes, count > 0 else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// The text of `value` (UTF-8; the pointer is asked for before the length, as SQLite requires).
    private static func text(of value: OpaquePointer?) -> String {
        guard let characters = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
    }

    /// Makes the statement reusable and drops bound copies.
    func reset() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
    }

    func finalize() {
        sqlite3_finalize(pointer)
    }
}
