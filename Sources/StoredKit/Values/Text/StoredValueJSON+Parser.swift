import Foundation

extension StoredValueJSON {
    /// A byte-level JSON reader that produces ``StoredValue``s directly, so no
    /// type is lost through `Any` (unlike `JSONSerialization`, which cannot tell `1` from `1.0`).
    struct Parser {
        let bytes: [UInt8]
        let source: String
        /// The deepest nesting read: ``StoredValue/maximumDepth``, one more for a document whose
        /// root dictionary holds a store's keys (each value may be as deep as any stored value).
        let limit: Int
        var index = 0
        /// False to check the text's syntax without building values (nor checking tags and keys):
        /// then any depth is read, in memory that does not grow with it.
        var building = true
        /// The most containers open at once so far.
        private(set) var deepest = 0

        init(bytes: [UInt8], source: String, limit: Int = StoredValue.maximumDepth) {
            self.bytes = bytes
            self.source = source
            self.limit = limit
        }

        func error(_ reason: String) -> StoreError {
            .corruptFile(path: source, reason: "invalid JSON at byte \(index): \(reason)", quarantinedAt: nil)
        }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        /// An array or object being read: its elements or members so far, and for an object the
        /// key whose value comes next and where the object starts (for errors in tags).
        private struct OpenContainer {
            let isObject: Bool
            let start: Int
            var elements: [StoredValue] = []
            var members: [String: StoredValue] = [:]
            var key = ""

            mutating func add(_ value: StoredValue) {
                if isObject {
                    members[key] = value
                } else {
                    elements.append(value)
                }
            }
        }

        /// A whole value, read with a stack of open containers of its own rather than the thread's,
        /// so the depth it reads does not depend on the stack size. Containers deeper than the limit
        /// are refused before they are entered.
        mutating func parseValue() throws -> StoredValue {
            var open: [OpenContainer] = []
            var result = try begin(into: &open)
            while let top = open.indices.last {
                if let value = result {
                    if building { open[top].add(value) }
                    guard consume(UInt8(ascii: ",")) else {
                        result = try close(open.removeLast(), depth: top)
                        continue
                    }
                    if open[top].isObject { try readKey(into: &open[top]) }
                }
                result = try begin(into: &open)
            }
            guard let result else { throw error("unexpected end of text") }
            return result
        }

        /// Reads a scalar, or an empty container, and returns it; or opens a container with
        /// elements (reading an object's first key) and returns nil.
        private mutating func begin(into open: inout [OpenContainer]) throws -> StoredValue? {
            let depth = open.count
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of text") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                // An object one level beyond the limit is read only as far as telling whether it is a
                // tagged scalar (`{"$date": …}` stands for a date at `depth`, not a dictionary).
                guard depth <= limit else { throw tooDeep() }
                let start = index
                index += 1
                if consume(UInt8(ascii: "}")) {
                    guard depth < limit else { throw tooDeep() }
                    // An empty container is a level like any other, for `nestsTooDeep` too.
                    deepest = max(deepest, depth + 1)
                    return .dictionary([:])
                }
                open.append(OpenContainer(isObject: true, start: start))
                deepest = max(deepest, open.count)
                try readKey(into: &open[depth])
                return nil
            case UInt8(ascii: "["):
                guard depth < limit else { throw tooDeep() }
                let start = index
                index += 1
                if consume(UInt8(ascii: "]")) {
                    deepest = max(deepest, depth + 1)
                    return .array([])
                }
                open.append(OpenContainer(isObject: false, start: start))
                deepest = max(deepest, open.count)
                return nil
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): throw error("null cannot be stored; leave the key or element out instead")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
            }
        }

        /// An object's next key and the colon after it.
        private mutating func readKey(into object: inout OpenContainer) throws {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
            let key = try parseString()
            try expect(UInt8(ascii: ":"))
            // Swift compares keys canonically: a second spelling would silently replace the first.
            if let earlier = object.members.index(forKey: key) { throw error(Self.twice(object.members[earlier].key, key)) }
            object.key = key
        }

        /// The value of a container whose last element was read, at `depth`.
        private mutating func close(_ container: OpenContainer, depth: Int) throws -> StoredValue {
            guard container.isObject else {
                try expect(UInt8(ascii: "]"))
                return .array(container.elements)
            }
            try expect(UInt8(ascii: "}"))
            guard building else { return .dictionary([:]) }
            let value = try untagged(container.members, at: container.start)
            if depth == limit, value.isContainer { throw tooDeep() }
            return value
        }

        private mutating func expectLiteral(_ literal: String) throws {
            let literalBytes = Array(literal.utf8)
            guard bytes.count - index >= literalBytes.count, Array(bytes[index..<(index + literalBytes.count)]) == literalBytes
            else { throw error("expected '\(literal)'") }
            index += literalBytes.count
        }

        private mutating func expect(_ byte: UInt8) throws {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == byte else {
                throw error("expected '\(Character(Unicode.Scalar(byte)))'")
            }
            index += 1
        }

        /// Consumes `byte` (after whitespace) if it is next.
        private mutating func consume(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private func tooDeep() -> StoreError {
            error(StoredValue.tooDeepReason)
        }

        /// Why an object that names one key twice (or in two spellings that differ only in their
        /// Unicode form) is refused: one of its values would be lost.
        private static func twice(_ earlier: String, _ key: String) -> String {
            guard !earlier.utf8.elementsEqual(key.utf8) else { return "the key '\(key)' appears twice; keep one" }
            return "the keys \(earlier.scalarSpelling) and \(key.scalarSpelling) differ only in their Unicode form, "
                + "which makes them one key; keep one"
        }

        private mutating func untagged(_ members: [String: StoredValue], at start: Int) throws -> StoredValue {
            guard members.count == 1, let (key, value) = members.first, key.hasPrefix("$") else { return .dictionary(members) }
            return try untag(key: key, value: value, at: start)
        }

        /// Turns a single-member `$` object back into the value it stands for.
        private mutating func untag(key: String, value: StoredValue, at start: Int) throws -> StoredValue {
            if key.hasPrefix("$$") { return .dictionary([String(key.dropFirst()): value]) }
            guard StoredValueJSON.tags.contains(key) else { return .dictionary([key: value]) }
            guard case .string(let text) = value else {
                index = start
                throw error("\(key) needs a string")
            }
            let decoded: StoredValue? =
                switch key {
                case "$date": StoredValueText.date(from: text).map(StoredValue.date)
                case "$data": Data(base64Encoded: text).map(StoredValue.data)
                default: StoredValueText.double(from: text).map(StoredValue.double)
                }
            guard let decoded else {
                index = start
                throw error("'\(text)' is not a valid \(key) value")
            }
            return decoded
        }

        private mutating func parseNumber() throws -> StoredValue {
            let start = index
            var isInteger = true
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw error("expected a digit") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard skipDigits() > 0 else { throw error("expected a digit after '.'") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard skipDigits() > 0 else { throw error("expected a digit in the exponent") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            // Nothing is rounded away silently: an integer is exact or refused, and a real may round
            // in its last digits but never to infinity or to zero.
            if isInteger {
                if let number = Int64(text) { return .int(number) }
                if let number = UInt64(text) { return StoredValue(number) }
                index = start
                throw error(
                    "'\(text)' is an integer beyond 64 bits (StoredKit holds -9223372036854775808 through "
                        + "18446744073709551615); store it as a string, or as a real written with a fraction or an exponent")
            }
            guard let number = Double(text) else { throw error("'\(text)' is not a number") }
            if let problem = StoredValueText.roundingProblem(text, number) {
                index = start
                throw error("'\(text)' is not stored as written: \(problem); write {\"$double\": \"inf\"} for infinity")
            }
            return .double(number)
        }

        private mutating func skipDigits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }

        private mutating func parseString() throws -> String {
            index += 1
            var result: [UInt8] = []
            while true {
                guard index < bytes.count else { throw error("unterminated string") }
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: result, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    try parseEscape(into: &result)
                case 0..<0x20:
                    index -= 1
                    throw error("control character in a string; write it as \\u00\(String(byte, radix: 16))")
                default:
                    result.append(byte)
                }
            }
        }

        private mutating func parseEscape(into result: inout [UInt8]) throws {
            guard index < bytes.count else { throw error("unterminated escape") }
            let byte = bytes[index]
            index += 1
            let simple: [UInt8: UInt8] = [
                UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
                UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
            ]
            if let replacement = simple[byte] {
                result.append(replacement)
                return
            }
            guard byte == UInt8(ascii: "u") else { throw error("unknown escape '\\\(Character(Unicode.Scalar(byte)))'") }
            var code = try parseHex4()
            if (0xD800..<0xDC00).contains(code) {
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("high surrogate without a low surrogate")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("high surrogate without a low surrogate") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else { throw error("lone surrogate \\u\(String(code, radix: 16))") }
            result.append(contentsOf: String(Character(scalar)).utf8)
        }

        private mutating func parseHex4() throws -> UInt32 {
            guard bytes.count - index >= 4,
                let code = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
            else { throw error("expected four hex digits after \\u") }
            index += 4
            return code
        }
    }
}
