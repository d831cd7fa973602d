import Foundation
import StoredKit

/// Renders values for people: every type is recognisable by its form, nested values are indented.
///
/// | type | printed as |
/// |---|---|
/// | string | `"Ada"` (always quoted, JSON escapes) |
/// | integer | `42` |
/// | real | `0.8`, `1.0`, `1e-05`, `nan`, `inf` (always a `.`, an exponent or a word) |
/// | boolean | `true`, `false` |
/// | date | `2024-05-01T10:00:00.25Z` (ISO 8601 UTC, exact; `write --date` reads it back) |
/// | data | `<cafe01>` (hex; beyond 32 bytes the first 32 and the size) |
/// | array, dictionary | one element per line, indented by two spaces; `[]` and `{}` when empty |
///
/// ```swift
/// ValuePrinter.entry("tabs", .array([.string("home")]))  //=> ["tabs:", "  - \"home\""]
/// ```
enum ValuePrinter {
    static let indentUnit = "  "
    static let dataPreviewLimit = 32

    /// The lines of `key: value`, the form of `stored read STORE`.
    static func entry(_ key: String, _ value: StoredValue, depth: Int = 0) -> [String] {
        let prefix = String(repeating: indentUnit, count: depth) + keyText(key) + ":"
        if let scalar = inlineScalar(value) { return [prefix + " " + scalar] }
        return [prefix] + lines(value, depth: depth + 1)
    }

    /// The lines of a value on its own, the form of `stored read STORE KEY`.
    static func lines(_ value: StoredValue, depth: Int = 0) -> [String] {
        let indent = String(repeating: indentUnit, count: depth)
        if let scalar = inlineScalar(value) { return [indent + scalar] }
        switch value {
        case .array(let elements):
            return elements.flatMap { element -> [String] in
                if let scalar = inlineScalar(element) { return [indent + "- " + scalar] }
                return [indent + "-"] + lines(element, depth: depth + 1)
            }
        case .dictionary(let members):
            return members.sorted { $0.key < $1.key }.flatMap { entry($0.key, $0.value, depth: depth) }
        default:
            return []  // every other case has an inline form
        }
    }

    /// A whole store, one `key: value` entry after another, keys sorted.
    static func store(_ values: [String: StoredValue]) -> String {
        values.sorted { $0.key < $1.key }.flatMap { entry($0.key, $0.value) }.joined(separator: "\n")
    }

    /// The value on one line, containers included: for `watch`.
    ///
    /// ```swift
    /// ValuePrinter.oneLine(.dictionary(["a": .array([.int(1)])]))  //=> {a: [1]}
    /// ```
    static func oneLine(_ value: StoredValue) -> String {
        switch value {
        case .array(let elements): "[" + elements.map(oneLine).joined(separator: ", ") + "]"
        case .dictionary(let members):
            "{"
                + members.sorted { $0.key < $1.key }.map { keyText($0.key) + ": " + oneLine($0.value) }
                .joined(separator: ", ") + "}"
        default: inlineScalar(value) ?? ""
        }
    }

    /// The text of a scalar or an empty container; `nil` for a container with elements.
    static func inlineScalar(_ value: StoredValue) -> String? {
        switch value {
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .uint(let number): String(number)
        case .double(let number): number.isFinite ? number.description : taggedText(value)
        case .string(let string): StoredValueJSON.encode(.string(string))
        case .date: taggedText(value)
        case .data(let data): dataText(data)
        case .array(let elements): elements.isEmpty ? "[]" : nil
        case .dictionary(let members): members.isEmpty ? "{}" : nil
        }
    }

    /// The text a person would search for in a scalar: strings unquoted.
    static func searchableText(_ value: StoredValue) -> String? {
        if case .string(let string) = value { return string }
        return inlineScalar(value)
    }

    /// A key as is when it is a plain word, else quoted so spaces and colons stay unambiguous.
    static func keyText(_ key: String) -> String {
        let isPlain =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy { scalar in
                CharacterSet.alphanumerics.contains(scalar) || "._-$@/".unicodeScalars.contains(scalar)
            }
        return isPlain ? key : StoredValueJSON.encode(.string(key))
    }

    private static func dataText(_ data: Data) -> String {
        let hex = data.prefix(dataPreviewLimit).map { String(format: "%02x", $0) }.joined()
        return data.count <= dataPreviewLimit ? "<\(hex)>" : "<\(hex)…> (\(data.count) bytes)"
    }

    /// The exact text StoredKit's JSON form uses for dates and non-finite doubles:
    /// `{"$date":"2024-05-01T10:00:00Z"}` gives `2024-05-01T10:00:00Z`.
    private static func taggedText(_ value: StoredValue) -> String {
        let json = StoredValueJSON.encode(value)
        guard let colon = json.firstIndex(of: ":") else { return json }
        return json[json.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: "\"}"))
    }
}
