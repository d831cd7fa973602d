import Foundation

/// The JSON form of a ``StoredValue``: plain JSON wherever plain JSON is exact, a small tagged
/// object where it would lose the type. Used for arrays and dictionaries in the SQLite `value`
/// column (so `json_extract(value, '$.tabs')` works) and by the `stored` CLI.
///
/// | StoredValue | JSON |
/// |---|---|
/// | `.bool(true)` | `true` |
/// | `.int(-3)`, `.uint(18446744073709551615)` | `-3`, `18446744073709551615` |
/// | `.double(1.0)`, `.double(-0.0)`, `.double(1e-05)` | `1.0`, `-0.0`, `1e-05` (always a `.` or exponent) |
/// | `.double(.nan)`, `.double(.infinity)` | `{"$double":"nan"}`, `{"$double":"inf"}` |
/// | `.string("a")` | `"a"` |
/// | `.data(…)` | `{"$data":"<base64>"}` |
/// | `.date(…)` | `{"$date":"2023-11-14T22:13:20.5Z"}` (see the exact date text in `StoredValueText`) |
/// | `.array`, `.dictionary` | JSON arrays and objects, keys sorted |
///
/// A number without `.` or exponent reads as an integer, any other as a double. A user
/// dictionary with exactly one key starting with `$` has that key written with one more `$`
/// (`{"$date": 1}` becomes `{"$$date":1}`), so it cannot be mistaken for a tag. `null` is not a
/// storable value and is rejected.
///
/// ```swift
/// StoredValueJSON.encode(.dictionary(["tabs": .array([.string("home")]), "zoom": .double(1)]))
/// //=> {"tabs":["home"],"zoom":1.0}
/// try StoredValueJSON.decode("[1, 1.0]")  //=> .array([.int(1), .double(1.0)])
/// ```
public enum StoredValueJSON {
    /// Object keys that mark a tagged value.
    static let tags: Set<String> = ["$date", "$data", "$double"]

    /// Writes `value` as compact JSON, or indented by two spaces when `prettyPrinted`.
    ///
    /// ```swift
    /// StoredValueJSON.encode(.array([.double(.infinity), .date(Date(timeIntervalSince1970: 0))]))
    /// //=> [{"$double":"inf"},{"$date":"1970-01-01T00:00:00Z"}]
    /// ```
    public static func encode(_ value: StoredValue, prettyPrinted: Bool = false) -> String {
        var writer = Writer(prettyPrinted: prettyPrinted)
        writer.write(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Reads JSON written by ``encode(_:prettyPrinted:)`` or by hand; `source` names it in errors.
    ///
    /// Throws ``StoreError/corruptFile(path:reason:quarantinedAt:)`` naming `source` and the byte offset.
    ///
    /// ```swift
    /// try StoredValueJSON.decode(#"{"$data":"AQI="}"#)  //=> .data(Data([1, 2]))
    /// try StoredValueJSON.decode("[1,", source: "backup.json")
    /// //=> throws: 'backup.json' is corrupt (invalid JSON at byte 3: unexpected end of text). …
    /// ```
    public static func decode(_ text: String, source: String = "JSON text") throws -> StoredValue {
        var parser = Parser(bytes: Array(text.utf8), source: source)
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    /// Reads a JSON object of store keys, as `stored export` writes it: the root dictionary is
    /// not a stored value, so each value in it may nest as deep as ``StoredValue/maximumDepth``.
    ///
    /// ```swift
    /// try StoredValueJSON.decodeKeys(#"{"volume": 0.5}"#, source: "backup.json")  //=> ["volume": .double(0.5)]
    /// ```
    public static func decodeKeys(_ text: String, source: String = "JSON text") throws -> [String: StoredValue] {
        var parser = Parser(bytes: Array(text.utf8), source: source, limit: StoredValue.maximumDepth + 1)
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the value") }
        guard case .dictionary(let keys) = value else {
            throw StoreError.corruptFile(
                path: source, reason: "the JSON holds \(value.typeName), not an object of keys", quarantinedAt: nil)
        }
        return keys
    }

    /// Whether `text` is JSON whose arrays and objects nest deeper than ``StoredValue/maximumDepth``
    /// (one level more for a tagged scalar): valid, but more than StoredKit reads, as opposed to
    /// damaged. Checked without building values, so any depth is checked on any stack.
    ///
    /// ```swift
    /// StoredValueJSON.nestsTooDeep(String(repeating: "[", count: 600) + String(repeating: "]", count: 600))  //=> true
    /// ```
    package static func nestsTooDeep(_ text: String) -> Bool {
        var parser = Parser(bytes: Array(text.utf8), source: "JSON text", limit: .max)
        parser.building = false
        guard (try? parser.parseValue()) != nil else { return false }
        parser.skipWhitespace()
        return parser.index == parser.bytes.count && parser.deepest > StoredValue.maximumDepth
    }

    /// What a column holding JSON that ``nestsTooDeep(_:)`` is said to hold, in a
    /// ``StoreEvent/decodingFailed(key:expected:found:)``: ``tooDeepFound``.
    package static let tooDeepFound =
        "valid JSON \(StoredValue.tooDeepPhrase), which StoredKit does not read; the row is kept as it is"

    private struct Writer {
        let prettyPrinted: Bool
        var bytes: [UInt8] = []

        /// A container being written: an array's elements or an object's members in writing order
        /// (held as they are, not copied), whether its one key gets another `$`, and the next one.
        private struct OpenContainer {
            var elements: [StoredValue] = []
            var members: [(key: String, value: StoredValue)] = []
            var escapesKey = false
            let isArray: Bool
            var next = 0
            var count: Int { isArray ? elements.count : members.count }
        }

        /// Writes `root` with a stack of open containers of its own: no recursion, whatever the depth.
        mutating func write(_ root: StoredValue) {
            var open: [OpenContainer] = []
            var next: StoredValue? = root
            while true {
                if let value = next {
                    next = nil
                    switch value {
                    case .array(let elements):
                        append("[")
                        if elements.isEmpty { append("]") } else { open.append(OpenContainer(elements: elements, isArray: true)) }
                    case .dictionary(let members):
                        append("{")
                        guard !members.isEmpty else {
                            append("}")
                            break
                        }
                        let sorted = members.sorted { $0.key < $1.key }
                        // A user dictionary with one `$` key gets one more `$`, so it is not read as a tag.
                        let escapesKey = sorted.count == 1 && sorted[0].key.hasPrefix("$")
                        open.append(OpenContainer(members: sorted, escapesKey: escapesKey, isArray: false))
                    default:
                        writeScalar(value)
                    }
                }
                guard let top = open.indices.last else { return }
                let index = open[top].next
                guard index < open[top].count else {
                    endContainer(open[top].isArray ? "]" : "}", isEmpty: false, depth: top)
                    open.removeLast()
                    continue
                }
                open[top].next += 1
                beginElement(index, depth: top)
                guard !open[top].isArray else {
                    next = open[top].elements[index]
                    continue
                }
                let (key, value) = open[top].members[index]
                writeString(open[top].escapesKey ? "$" + key : key)
                append(prettyPrinted ? ": " : ":")
                next = value
            }
        }

        private mutating func writeScalar(_ value: StoredValue) {
            switch value {
            case .bool(let flag): append(flag ? "true" : "false")
            case .int(let number): append(String(number))
            case .uint(let number): append(String(number))
            case .double(let number):
                if number.isFinite {
                    append(number.description)
                } else {
                    writeTagged("$double", StoredValueText.text(of: number))
                }
            case .string(let string): writeString(string)
            case .data(let data): writeTagged("$data", data.base64EncodedString())
            case .date(let date): writeTagged("$date", StoredValueText.text(of: date))
            case .array, .dictionary: break  // written by write(_:)
            }
        }

        private mutating func beginElement(_ index: Int, depth: Int) {
            if index > 0 { append(",") }
            newline(depth + 1)
        }

        private mutating func endContainer(_ close: String, isEmpty: Bool, depth: Int) {
            if !isEmpty { newline(depth) }
            append(close)
        }

        private mutating func newline(_ depth: Int) {
            guard prettyPrinted else { return }
            bytes.append(0x0A)
            bytes.append(contentsOf: repeatElement(0x20, count: depth * 2))
        }

        private mutating func writeTagged(_ tag: String, _ text: String) {
            append("{")
            writeString(tag)
            append(prettyPrinted ? ": " : ":")
            writeString(text)
            append("}")
        }

        private mutating func writeString(_ string: String) {
            bytes.append(UInt8(ascii: "\""))
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                case 0..<0x20:
                    let hex = String(byte, radix: 16)
                    append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }

        private mutating func append(_ text: String) {
            bytes.append(contentsOf: text.utf8)
        }
    }
}
