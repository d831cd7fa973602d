internal import CStoredPostgres
import StoredKit

/// The rows of one command's result, read in place from libpq's `PGresult` (text format): a
/// namespace of 10,000 keys is decoded straight into its values, without first copying every
/// field into an array of strings. Valid only inside the closure of
/// ``PostgresConnection/query(_:_:reading:)``, which frees the result afterwards.
///
/// ```swift
/// let count = try connection.query("SELECT key FROM storedkit.preferences", [], reading: { $0.rowCount })  //=> 3
/// ```
struct PostgresResult {
    fileprivate let handle: OpaquePointer

    fileprivate init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    /// How many rows the command returned.
    var rowCount: Int32 { PQntuples(handle) }

    /// How many columns each row has.
    var columnCount: Int32 { PQnfields(handle) }

    /// The field's text, nil for NULL (or a column the result does not have).
    ///
    /// ```swift
    /// result.text(0, 1)  //=> "int"
    /// ```
    func text(_ row: Int32, _ column: Int32) -> String? {
        bytes(row, column).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the field is `expected`, compared in place (no String made): for the row kinds
    /// of a read, asked of every row.
    ///
    /// ```swift
    /// result.has(0, 0, "removed")  //=> false
    /// ```
    func has(_ row: Int32, _ column: Int32, _ expected: String) -> Bool {
        bytes(row, column)?.elementsEqual(expected.utf8) ?? false
    }

    /// The field's bytes in place (its length from libpq, so no `strlen`), nil for NULL.
    private func bytes(_ row: Int32, _ column: Int32) -> UnsafeRawBufferPointer? {
        guard column < columnCount, PQgetisnull(handle, row, column) == 0 else { return nil }
        return UnsafeRawBufferPointer(start: PQgetvalue(handle, row, column), count: Int(PQgetlength(handle, row, column)))
    }

    /// The field as an integer, parsed from its text without making a String; nil for NULL or not a number.
    ///
    /// ```swift
    /// result.integer(0, 4)  //=> 42
    /// ```
    func integer(_ row: Int32, _ column: Int32) -> Int64? {
        bytes(row, column).flatMap(Int64.init(decimal:))
    }
}

extension PostgresResult {
    /// Runs `read` on the result `handle`; the caller keeps and frees it.
    static func reading<R>(_ handle: OpaquePointer?, _ read: (PostgresResult) throws -> R) rethrows -> R? {
        guard let handle else { return nil }
        return try read(PostgresResult(handle))
    }
}

extension Int64 {
    /// The number PostgreSQL's text output of a `bigint` spells (`-?[0-9]+`), exactly as
    /// `Int64(String)` reads it: nil for anything else or out of range.
    fileprivate init?(decimal digits: UnsafeRawBufferPointer) {
        guard !digits.isEmpty else { return nil }
        let negative = digits[0] == UInt8(ascii: "-")
        let start = negative || digits[0] == UInt8(ascii: "+") ? 1 : 0
        guard start < digits.count else { return nil }
        var value: Int64 = 0
        for byte in digits[start...] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int64(byte - UInt8(ascii: "0"))
            // Accumulated negatively, so Int64.min fits.
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, underflowed) = shifted.subtractingReportingOverflow(digit)
            guard !overflowed, !underflowed else { return nil }
            value = next
        }
        if negative {
            self = value
        } else {
            guard value != .min else { return nil }
            self = -value
        }
    }
}
