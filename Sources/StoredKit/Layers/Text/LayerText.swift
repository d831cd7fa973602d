import Foundation

/// Turns the text of an argument or environment variable into the type a key is read as, by trying
/// its readings in a fixed order until one decodes: the text itself (String, URL, UUID, string
/// enums), a Bool (`true`/`false`/`YES`/`NO`/`1`/`0`), an integer, a real (``StoredValueText``'s
/// decimal form), an ISO 8601 date, JSON (``StoredValueJSON``), and XML plist text (``PlistCodec``).
enum LayerText {
    /// The first reading of `text` that `decode` accepts; throws a reason naming every reading tried.
    static func convert<Value>(_ text: String, typeName: @autoclosure () -> String, decode: (StoredValue) throws -> Value)
        throws(LayerTextError) -> Value
    {
        for reading in Reading.allCases {
            guard let value = reading.value(of: text) else { continue }
            if let decoded = try? decode(value) { return decoded }
        }
        throw LayerTextError(
            reason: "the text \"\(text.prefix(80))\" is not a \(typeName()) (read as text, Bool, integer, real, "
                + "ISO 8601 date, JSON and XML plist)")
    }

    enum Reading: CaseIterable {
        case text, bool, integer, real, date, json, plist

        func value(of text: String) -> StoredValue? {
            switch self {
            case .text: return .string(text)
            case .bool:
                switch text {
                case "true", "YES", "1": return .bool(true)
                case "false", "NO", "0": return .bool(false)
                default: return nil
                }
            case .integer:
                if let value = Int64(text) { return .int(value) }
                return UInt64(text).map { .uint($0) }
            case .real: return StoredValueText.double(from: text).map { .double($0) }
            case .date: return StoredValueText.date(from: text).map { .date($0) }
            case .json:
                guard let first = text.utf8.first(where: { $0 != 0x20 && $0 != 0x0A }),
                    first == UInt8(ascii: "[") || first == UInt8(ascii: "{") || first == UInt8(ascii: "\"")
                else { return nil }
                return try? StoredValueJSON.decode(text, source: "text")
            case .plist:
                guard text.utf8.first(where: { $0 != 0x20 && $0 != 0x0A }) == UInt8(ascii: "<") else { return nil }
                return try? PlistCodec.decode(Data(text.utf8), path: "text")
            }
        }
    }
}

/// Why a text did not convert.
struct LayerTextError: Error {
    let reason: String
}
