import Foundation
import StoredKit

/// The type flags of `stored write` and how each reads its text.
///
/// ```swift
/// try ValueParser.parse("yes", as: .bool, key: "enabled")  //=> .bool(true)
/// try ValueParser.parse("abc", as: .int, key: "count")
/// //=> throws: Invalid value for 'count': 'abc' is not an integer. --int takes a whole number such as 42 or -7.
/// ```
enum ValueType: String, CaseIterable, Sendable {
    case string, int, double, bool, date, data, json

    var help: String {
        switch self {
        case .string: "the text as it is (the default)"
        case .int: "a whole number from -9223372036854775808 to 18446744073709551615"
        case .double: "a floating-point number: 0.8, -1e-3, nan, inf, -inf"
        case .bool: "true/false, yes/no or 1/0"
        case .date: "ISO 8601: 2024-05-01T10:00:00Z, 2024-05-01T12:00:00.25+02:00, 2024-05-01 (midnight UTC), or now"
        case .data: "hex (cafe01, 0xCAFE01) or base64 (base64:yv4B); even-length hex digits read as hex"
        case .json: #"a JSON document, nested as it is; {"$date": ...} and {"$data": ...} are tagged values"#
        }
    }
}

/// Reads the text of `stored write VALUE` as the requested type, with errors that say what was
/// expected. Nothing here touches a store: a value is parsed completely before any store is opened.
enum ValueParser {
    static func parse(_ text: String, as type: ValueType, key: String) throws(CLIError) -> StoredValue {
        if type == .double, let value = double(text), let problem = StoredValueText.roundingProblem(text, value),
            !["inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"].contains(text.lowercased())
        {
            throw CLIError(
                .invalidInput,
                "Invalid value for '\(key)': '\(text)' is not stored as written: \(problem). --double takes \(type.help).")
        }
        if type == .date, let problem = DateArgument.calendarProblem(in: text) {
            throw CLIError(
                .invalidInput, "Invalid value for '\(key)': '\(text)' is not a date: \(problem). --date takes \(type.help).")
        }
        let value: StoredValue? =
            switch type {
            case .string: .string(text)
            case .int: integer(text)
            case .double: double(text).map(StoredValue.double)
            case .bool: bool(text).map(StoredValue.bool)
            case .date: date(text).map(StoredValue.date)
            case .data: data(text).map(StoredValue.data)
            case .json: try json(text, key: key)
            }
        guard let value else {
            throw CLIError(
                .invalidInput, "Invalid value for '\(key)': '\(text)' is not \(article(type)). --\(type) takes \(type.help).")
        }
        return value
    }

    static func integer(_ text: String) -> StoredValue? {
        if let signed = Int64(text) { return .int(signed) }
        return UInt64(text).map { StoredValue($0) }
    }

    static func double(_ text: String) -> Double? {
        switch text.lowercased() {
        case "nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: break
        }
        // Double(String) also takes hex floats and "infinity" spellings; plain decimals are clearer.
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) else { return nil }
        return Double(text)
    }

    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "1": true
        case "false", "no", "0": false
        default: nil
        }
    }

    static func date(_ text: String) -> Date? {
        if text.lowercased() == "now" { return Date() }
        // The exact form `stored read` prints (any number of fractional digits, UTC) first.
        let tagged = #"{"$date":"# + StoredValueJSON.encode(.string(text)) + "}"
        if case .date(let date)? = try? StoredValueJSON.decode(tagged) { return date }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        // The date-only style also accepts a prefix of a longer text; only a bare date may use it.
        guard text.count == 10 else { return nil }
        return try? Date.ISO8601FormatStyle().year().month().day().parse(text)
    }

    static func data(_ text: String) -> Data? {
        if text.hasPrefix("base64:") { return Data(base64Encoded: String(text.dropFirst(7))) }
        let hex = text.hasPrefix("0x") || text.hasPrefix("0X") ? String(text.dropFirst(2)) : text
        if hex.count.isMultiple(of: 2), hex.allSatisfy(\.isHexDigit) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(hex.count / 2)
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
                bytes.append(byte)
                index = next
            }
            return Data(bytes)
        }
        return Data(base64Encoded: text)
    }

    static func json(_ text: String, key: String) throws(CLIError) -> StoredValue {
        do {
            return try StoredValueJSON.decode(text, source: "the value of '\(key)'")
        } catch {
            throw CLIError(
                .invalidInput, "Invalid JSON for '\(key)': \(reason(of: error)). Check the quoting; the store was not changed.")
        }
    }

    /// The parser's explanation without the file-corruption advice that suits stores, not arguments.
    static func reason(of error: any Error) -> String {
        if case StoreError.corruptFile(_, let reason, _) = error { return reason }
        return "\(error)"
    }

    private static func article(_ type: ValueType) -> String {
        switch type {
        case .string: "a string"
        case .int: "an integer"
        case .double: "a number"
        case .bool: "a boolean"
        case .date: "a date"
        case .data: "hex or base64 data"
        case .json: "JSON"
        }
    }
}
