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

    /// The column as an integer (0 for NULL, as SQLite converts).
    func integer(at column: Int32) -> Int64 {
        sqlite3_column_int64(pointer, column)
    }

    func text(at column: Int32) -> String {
        guard let characters = sqlite3_column_text(pointer, column) else { return "" }
        let count = Int(sqlite3_column_bytes(pointer, column))
        return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
    }

    /// The column's text bytes, valid only inside `body` (no `String` is made).
    func withBytes<R>(at column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let count = Int(sqlite3_column_bytes(pointer, column))
        return body(UnsafeBufferPointer(start: sqlite3_column_text(pointer, column), count: count))
    }

    func value(at column: Int32) -> SQLiteColumnValue {
        switch sqlite3_column_type(pointer, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(pointer, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(pointer, column))
        case SQLITE_TEXT: return .text(text(at: column))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(pointer, column))
            guard let bytes = sqlite3_column_blob(pointer, column), count > 0 else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
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
