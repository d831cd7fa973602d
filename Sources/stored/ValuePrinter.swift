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
        render(.entry(key, value, depth: depth))
    }

    /// The lines of a value on its own, the form of `stored read STORE KEY`.
    static func lines(_ value: StoredValue, depth: Int = 0) -> [String] {
        render(.value(value, depth: depth))
    }

    /// A whole store, one `key: value` entry after another, keys sorted.
    static func store(_ values: [String: StoredValue]) -> String {
        values.sorted { $0.key < $1.key }.flatMap { entry($0.key, $0.value) }.joined(separator: "\n")
    }

    /// What is still to print, with the depth it is indented to.
    private enum Part {
        /// `key:` and the value, inline when it is a scalar.
        case entry(String, StoredValue, depth: Int)
        /// `-` and an array's element, inline when it is a scalar.
        case element(StoredValue, depth: Int)
        /// A value on its own lines.
        case value(StoredValue, depth: Int)
    }

    /// Prints `first` with a work list of its own, so a value of any depth prints on any thread.
    private static func render(_ first: Part) -> [String] {
        var output: [String] = []
        var pending = [first]
        while let part = pending.popLast() {
            switch part {
            case .entry(let key, let value, let depth):
                let prefix = String(repeating: indentUnit, count: depth) + keyText(key) + ":"
                if let scalar = inlineScalar(value) {
                    output.append(prefix + " " + scalar)
                } else {
                    output.append(prefix)
                    pending.append(.value(value, depth: depth + 1))
                }
            case .element(let value, let depth):
                let indent = String(repeating: indentUnit, count: depth)
                if let scalar = inlineScalar(value) {
                    output.append(indent + "- " + scalar)
                } else {
                    output.append(indent + "-")
                    pending.append(.value(value, depth: depth + 1))
                }
            case .value(let value, let depth):
                if let scalar = inlineScalar(value) {
                    output.append(String(repeating: indentUnit, count: depth) + scalar)
                    continue
                }
                // Pushed last first, so that they are printed in order.
                switch value {
                case .array(let elements):
                    pending.append(contentsOf: elements.reversed().map { .element($0, depth: depth) })
                case .dictionary(let members):
                    pending.append(
                        contentsOf: members.sorted { $0.key > $1.key }.map { .entry($0.key, $0.value, depth: depth) })
                default:
                    break  // every other case has an inline form
                }
            }
        }
        return output
    }

    /// The value on one line, containers included: for `watch`. Made with a stack of its own.
    ///
    /// ```swift
    /// ValuePrinter.oneLine(.dictionary(["a": .array([.int(1)])]))  //=> {a: [1]}
    /// ```
    static func oneLine(_ value: StoredValue) -> String {
        var output = ""
        // Each open container's members in order (keys nil in an array) and the next one.
        var open: [(members: [(key: String?, value: StoredValue)], next: Int, isArray: Bool)] = []
        var next: StoredValue? = value
        while true {
            if let value = next {
                next = nil
                switch value {
                case .array(let elements):
                    output += "["
                    open.append((elements.map { (nil, $0) }, 0, true))
                case .dictionary(let members):
                    output += "{"
                    open.append((members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, 0, false))
                default:
                    output += inlineScalar(value) ?? ""
                }
            }
            guard let top = open.indices.last else { return output }
            let index = open[top].next
            guard index < open[top].members.count else {
                output += open[top].isArray ? "]" : "}"
                open.removeLast()
                continue
            }
            if index > 0 { output += ", " }
            if let key = open[top].members[index].key { output += keyText(key) + ": " }
            next = open[top].members[index].value
            open[top].next += 1
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

    /// A key for a listing of one key a line: as it is, unless it holds a control character (a
    /// key from another program's or an administrator's file may hold an escape sequence, or a
    /// line break), which is then quoted and spelled out as in JSON, never written as bytes.
    static func lineSafeKey(_ key: String) -> String {
        let isSafe = key.unicodeScalars.allSatisfy { !CharacterSet.controlCharacters.contains($0) }
        return isSafe ? key : StoredValueJSON.encode(.string(key))
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
