import Foundation

/// How a ``StoredValue`` is laid out in the `type` and `value` columns of the `preferences` table.
///
/// Scalars use SQLite's native types so that queries read naturally; the `type` column keeps
/// what SQLite cannot (bool vs int, date vs string), so every value reads back exactly:
///
/// | type | value column |
/// |---|---|
/// | `bool` | INTEGER 0 or 1 |
/// | `int` | INTEGER |
/// | `uint` | TEXT decimal (only values above `Int64.max` are `uint`) |
/// | `double` | REAL; TEXT `nan`, `inf`, `-inf` or `nan:0x<bits>` for non-finite values (SQLite stores NaN as NULL) |
/// | `string` | TEXT |
/// | `data` | BLOB |
/// | `date` | TEXT, ISO 8601 UTC with exact fractional seconds: `datetime(value)` works (see ``StoredValueText``) |
/// | `array`, `dictionary` | TEXT, the JSON of ``StoredValueJSON``: `json_extract(value, '$.tabs')` works |
enum SQLiteValueColumns {
    /// The `type` and `value` columns for `value`, stored under `key`. A value nested deeper than
    /// ``StoredValue/maximumDepth`` is refused: its JSON would not read back (the engine refuses
    /// it at `set` already; this guards direct callers of the backend).
    static func columns(for value: StoredValue, key: String) throws(StoreError) -> (type: String, value: SQLiteColumnValue) {
        if value.isContainer, value.isNested(deeperThan: StoredValue.maximumDepth) {
            throw StoreError.refused(key: key, reason: StoredValue.tooDeepReason)
        }
        return switch value {
        case .bool(let flag): ("bool", .integer(flag ? 1 : 0))
        case .int(let number): ("int", .integer(number))
        case .uint(let number):
            number <= UInt64(Int64.max) ? ("int", .integer(Int64(number))) : ("uint", .text(String(number)))
        case .double(let number): ("double", number.isFinite ? .real(number) : .text(StoredValueText.text(of: number)))
        case .string(let text): ("string", .text(text))
        case .data(let data): ("data", .blob(data))
        case .date(let date): ("date", .text(StoredValueText.text(of: date)))
        case .array: ("array", .text(StoredValueJSON.encode(value)))
        case .dictionary: ("dictionary", .text(StoredValueJSON.encode(value)))
        }
    }

    /// The `type` column's values. Rows are read by the thousand at open, so a name of up to
    /// eight bytes is told by the one integer its bytes make (little-endian), not by comparing
    /// a `String` or calling `memcmp` for each candidate.
    enum Kind {
        case bool, int, uint, double, string, data, date, array, dictionary

        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard bytes.count <= 8 else {
                guard bytes.elementsEqual("dictionary".utf8) else { return nil }
                self = .dictionary
                return
            }
            var word: UInt64 = 0
            for (index, byte) in bytes.enumerated() { word |= UInt64(byte) << (8 * index) }
            // The length too: "int" followed by a NUL byte makes the same integer as "int".
            switch (bytes.count, word) {
            case (3, 0x74_6E_69): self = .int  // "int"
            case (4, 0x6C_6F_6F_62): self = .bool  // "bool"
            case (4, 0x74_6E_69_75): self = .uint  // "uint"
            case (4, 0x61_74_61_64): self = .data  // "data"
            case (4, 0x65_74_61_64): self = .date  // "date"
            case (5, 0x79_61_72_72_61): self = .array  // "array"
            case (6, 0x65_6C_62_75_6F_64): self = .double  // "double"
            case (6, 0x67_6E_69_72_74_73): self = .string  // "string"
            default: return nil
            }
        }
    }

    /// The value stored as `type` and `column`, or nil when they do not match (a hand-edited row).
    ///
    /// Lenient where the meaning is clear: a REAL date is seconds since 1970, an INTEGER double is
    /// that number.
    static func value(kind: Kind?, column: SQLiteColumnValue) -> StoredValue? {
        switch (kind, column) {
        case (.bool, .integer(let number)) where number == 0 || number == 1: return .bool(number == 1)
        case (.int, .integer(let number)): return .int(number)
        case (.uint, .text(let text)): return UInt64(text).map(StoredValue.init)
        case (.double, .real(let number)): return .double(number)
        case (.double, .integer(let number)): return .double(Double(number))
        case (.double, .text(let text)): return StoredValueText.double(from: text).map(StoredValue.double)
        case (.string, .text(let text)): return .string(text)
        case (.data, .blob(let data)): return .data(data)
        case (.date, .text(let text)): return StoredValueText.date(from: text).map(StoredValue.date)
        case (.date, .real(let seconds)): return .date(Date(timeIntervalSince1970: seconds))
        case (.date, .integer(let seconds)): return .date(Date(timeIntervalSince1970: Double(seconds)))
        case (.array, .text(let text)):
            guard case .array(let values)? = try? StoredValueJSON.decode(text) else { return nil }
            return .array(values)
        case (.dictionary, .text(let text)):
            guard case .dictionary(let values)? = try? StoredValueJSON.decode(text) else { return nil }
            return .dictionary(values)
        default: return nil
        }
    }
}
