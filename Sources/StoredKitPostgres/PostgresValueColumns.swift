import Foundation
import StoredKit

/// How a ``StoredValue`` is laid out in the typed columns of `storedkit.preferences`, with the
/// same `type` names as the SQLite layout (``SQLiteValueColumns``). Exactly one column is set
/// (two for a date), so `psql` queries read naturally and every value reads back exactly:
///
/// | type | column |
/// |---|---|
/// | `bool` | `bool_value boolean` |
/// | `int` | `int_value bigint` |
/// | `uint` | `uint_value numeric` (only values above `Int64.max` are `uint`) |
/// | `double` | `double_value double precision`; a NaN with a payload as `string_value` `nan:0x<bits>` |
/// | `string` | `string_value text`; a string holding U+0000 (which PostgreSQL text cannot) as its UTF-8 in `data_value` |
/// | `data` | `data_value bytea` |
/// | `date` | `string_value`, ISO 8601 UTC with exact fractional seconds, and `date_value timestamptz` (microseconds) for queries |
/// | `array`, `dictionary` | `json json`, the text of ``StoredValueJSON`` kept exactly: `json->'order'` works |
enum PostgresValueColumns {
    /// The columns after `type`, in this order, as the upsert binds them and the reads select them.
    static let names = [
        "bool_value", "int_value", "uint_value", "double_value", "string_value", "data_value", "date_value", "json",
    ]

    /// The `type` name and the text of each column in ``names`` (nil for NULL) for `value`, stored
    /// under `key`. A value nested deeper than ``StoredValue/maximumDepth`` is refused: its JSON
    /// would not read back (the engine refuses it at `set` already; this guards direct callers).
    static func columns(for value: StoredValue, key: String) throws(StoreError) -> (type: String, columns: [String?]) {
        if value.isNested(deeperThan: StoredValue.maximumDepth) {
            throw StoreError.refused(key: key, reason: StoredValue.tooDeepReason)
        }
        var columns = [String?](repeating: nil, count: names.count)
        let type: String
        switch value {
        case .bool(let flag):
            (type, columns[0]) = ("bool", flag ? "true" : "false")
        case .int(let number):
            (type, columns[1]) = ("int", String(number))
        case .uint(let number):
            if number <= UInt64(Int64.max) {
                (type, columns[1]) = ("int", String(number))
            } else {
                (type, columns[2]) = ("uint", String(number))
            }
        case .double(let number):
            type = "double"
            if number.isNaN && number.bitPattern != Double.nan.bitPattern {
                columns[4] = StoredValueText.text(of: number)
            } else {
                columns[3] =
                    number.isNaN ? "NaN" : number.isInfinite ? (number < 0 ? "-Infinity" : "Infinity") : number.description
            }
        case .string(let text):
            type = "string"
            if text.utf8.contains(0) {
                columns[5] = hex(Data(text.utf8))
            } else {
                columns[4] = text
            }
        case .data(let data):
            (type, columns[5]) = ("data", hex(data))
        case .date(let date):
            type = "date"
            columns[4] = StoredValueText.text(of: date)
            let seconds = date.timeIntervalSince1970
            // timestamptz holds years 4713 BC to 294276 AD; outside of 1..9999 only the text is kept.
            if seconds > -62_135_596_800 && seconds < 253_402_300_800 {
                columns[6] = String(format: "%.6f", seconds)
            }
        case .array:
            (type, columns[7]) = ("array", StoredValueJSON.encode(value))
        case .dictionary:
            (type, columns[7]) = ("dictionary", StoredValueJSON.encode(value))
        }
        return (type, columns)
    }

    /// The value stored as `type` in row `row` of `result`, whose columns from `first` on are
    /// ``names`` in order, or nil when they do not match (a hand-edited row). Reads only the
    /// column the type names, straight from the result.
    static func value(type: String, _ result: PostgresResult, row: Int32, first: Int32) -> StoredValue? {
        func column(_ index: Int32) -> String? { result.text(row, first + index) }
        switch type {
        case "bool":
            switch column(0) {
            case "t": return .bool(true)
            case "f": return .bool(false)
            default: return nil
            }
        case "int": return result.integer(row, first + 1).map(StoredValue.int)
        case "uint": return column(2).flatMap { UInt64($0) }.map(StoredValue.uint)
        case "double":
            if let text = column(3) {
                switch text {
                case "NaN": return .double(.nan)
                case "Infinity": return .double(.infinity)
                case "-Infinity": return .double(-.infinity)
                default: return Double(text).map(StoredValue.double)
                }
            }
            return column(4).flatMap { StoredValueText.double(from: $0) }.map(StoredValue.double)
        case "string":
            if let text = column(4) { return .string(text) }
            return column(5).flatMap(bytes).flatMap { String(data: $0, encoding: .utf8) }.map(StoredValue.string)
        case "data": return column(5).flatMap(bytes).map(StoredValue.data)
        case "date":
            if let text = column(4) { return StoredValueText.date(from: text).map(StoredValue.date) }
            // A hand-written row may set only the timestamptz: read its seconds.
            return nil
        case "array":
            guard case .array(let values)? = column(7).flatMap({ try? StoredValueJSON.decode($0) }) else { return nil }
            return .array(values)
        case "dictionary":
            guard case .dictionary(let values)? = column(7).flatMap({ try? StoredValueJSON.decode($0) }) else { return nil }
            return .dictionary(values)
        default: return nil
        }
    }

    /// What row `row` of `result` held (its ``names`` columns from `first` on), for a decoding-failure event.
    /// Valid JSON nested too deep is told apart from damage.
    static func summary(type: String, _ result: PostgresResult, row: Int32, first: Int32) -> String {
        if let json = result.text(row, first + 7), StoredValueJSON.nestsTooDeep(json) { return StoredValueJSON.tooDeepFound }
        let set = names.enumerated().compactMap { index, name in
            result.text(row, first + Int32(index)).map { "\(name) \(String($0.prefix(40)))" }
        }
        return "\(type): " + (set.isEmpty ? "no value" : set.joined(separator: ", "))
    }

    /// bytea's hex input form: `\x` and two hex digits per byte.
    private static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]("\\x".utf8)
        text.reserveCapacity(2 + data.count * 2)
        for byte in data {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads bytea's hex output form (`bytea_output = hex`, the default).
    private static func bytes(_ text: String) -> Data? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            return nil
        }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x61...0x66: byte - 0x61 + 10
            case 0x41...0x46: byte - 0x41 + 10
            default: nil
            }
        }
        var data = Data(capacity: (utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }
}
