import Foundation

/// Reads the XML property-list dialect Foundation writes, straight from UTF-8 bytes into ``StoredValue``.
///
/// A hand-written scanner rather than `XMLParser`: no callbacks, no `Any`, no intermediate strings for
/// numbers, and every error names the byte offset where the file stopped making sense.
struct PlistXMLReader {
    private struct StartTag {
        let element: PlistXMLElement
        let isEmpty: Bool
        let offset: Int
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let path: String
    private var position = 0
    /// Where the first container beyond ``PlistCodec/maximumDepth`` starts, once one was checked.
    private var firstTooDeep: Int?
    private var equivalentKeys = PlistEquivalentKeys()
    /// Entries and items of the containers being read, innermost last: building each dictionary at its
    /// final size avoids rehashing as it grows, and the storage is reused across containers.
    private var pendingEntries: [(key: String, value: StoredValue)] = []
    private var pendingItems: [StoredValue] = []

    /// A container being read: where its entries or items start in `pendingEntries` or
    /// `pendingItems`, and for a dictionary the key whose value comes next.
    private struct OpenContainer {
        let tag: StartTag
        let base: Int
        var key = ""
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, path: String) {
        self.bytes = bytes
        self.path = path
    }

    /// Parses a whole XML plist document; `path` only names the file in errors.
    ///
    /// The `encoding` of the XML declaration is honoured for UTF-8, ISO-8859-1 (Latin-1) and
    /// US-ASCII; a file declaring another encoding is refused with a message naming it.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, path: String) throws(StoreError) -> StoredValue {
        var equivalentKeys = PlistEquivalentKeys()
        return try read(bytes, path: path, equivalentKeys: &equivalentKeys)
    }

    /// ``read(_:path:)``, also collecting keys equal only up to Unicode normalisation.
    static func read(
        _ bytes: UnsafeBufferPointer<UInt8>, path: String, equivalentKeys: inout PlistEquivalentKeys
    ) throws(StoreError) -> StoredValue {
        switch try PlistXMLEncoding.declared(in: bytes, path: path) {
        case .utf8:
            var reader = PlistXMLReader(bytes: bytes, path: path)
            defer { equivalentKeys = reader.equivalentKeys }
            return try reader.readDocument()
        case .latin1:
            // Every Latin-1 byte is the Unicode scalar of the same number: widen to UTF-8 once, then
            // read as usual. Byte offsets in messages then count the UTF-8 bytes.
            var utf8: [UInt8] = []
            utf8.reserveCapacity(bytes.count)
            for byte in bytes { UTF8.encode(Unicode.Scalar(byte)) { utf8.append($0) } }
            return try utf8.withUnsafeBufferPointer { (converted) throws(StoreError) in
                var reader = PlistXMLReader(bytes: converted, path: path)
                defer { equivalentKeys = reader.equivalentKeys }
                return try reader.readDocument()
            }
        }
    }

    private mutating func readDocument() throws(StoreError) -> StoredValue {
        guard !bytes.isEmpty else { throw failure("the file is empty") }
        if bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) {
            throw StoreError.unsupportedFile(
                path: path, reason: "XML in UTF-16", advice: "Convert it to UTF-8 with 'plutil -convert xml1' or iconv.")
        }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        if isAtXMLDeclaration {
            guard let end = find("?>", from: position + 5) else {
                throw failure("unterminated XML declaration at byte \(position)")
            }
            position = end + 2
        }
        try skipMarkup(allowingDeclarations: true)
        guard position < bytes.count, bytes[position] == UInt8(ascii: "<") else {
            throw failure("not a property list: expected '<' at byte \(position)")
        }
        let rootTag = try readStartTag()
        let value: StoredValue
        if rootTag.element == .plist {
            guard !rootTag.isEmpty else { throw failure("empty <plist/> element at byte \(rootTag.offset)") }
            try skipMarkup(allowingDeclarations: false)
            guard !isAtEndTag else { throw failure("<plist> holds no value (byte \(position))") }
            value = try readValue(try readStartTag())
            try skipMarkup(allowingDeclarations: false)
            try readEndTag(of: .plist)
        } else {
            value = try readValue(rootTag)
        }
        try skipMarkup(allowingDeclarations: true)
        guard position == bytes.count else { throw failure("unexpected content after the property list at byte \(position)") }
        if let offset = firstTooDeep { throw PlistCodec.tooDeep(path: path, at: offset) }
        return value
    }

    // MARK: Values

    /// Reads the value `first` starts, with a stack of open containers of its own rather than the
    /// thread's, so the depth it reads does not depend on the stack size.
    private mutating func readValue(_ first: StartTag) throws(StoreError) -> StoredValue {
        var open: [OpenContainer] = []
        var result = try begin(first, into: &open)
        while let top = open.indices.last {
            if let value = result {
                if open[top].tag.element == .dictionary {
                    pendingEntries.append((open[top].key, value))
                } else {
                    pendingItems.append(value)
                }
            }
            try skipMarkup(allowingDeclarations: false)
            try requireElementStart(inside: open[top].tag)
            if isAtEndTag {
                try readEndTag(of: open[top].tag.element)
                result = close(open.removeLast(), atRoot: open.isEmpty)
                continue
            }
            if open[top].tag.element == .dictionary { open[top].key = try readKey(inside: open[top].tag) }
            result = try begin(try readStartTag(), into: &open)
        }
        guard let result else { throw failure("unexpected end of file at byte \(position)") }
        return result
    }

    /// Reads a scalar or an empty container and returns it; or opens a container that has
    /// content and returns nil. Beyond ``PlistCodec/maximumDepth`` a container is only checked.
    private mutating func begin(_ tag: StartTag, into open: inout [OpenContainer]) throws(StoreError) -> StoredValue? {
        guard tag.element == .dictionary || tag.element == .array else { return try readScalar(tag) }
        // An empty container is a level like any other (`<array/>` as `<array></array>`), as the
        // binary reader, the writers and `isNested` count it.
        guard open.count < PlistCodec.maximumDepth else { return try checkTooDeep(tag) }
        guard !tag.isEmpty else { return try readScalar(tag) }
        open.append(OpenContainer(tag: tag, base: tag.element == .dictionary ? pendingEntries.count : pendingItems.count))
        return nil
    }

    /// The value of a container whose end tag was read; `atRoot` when it is the outermost one.
    private mutating func close(_ container: OpenContainer, atRoot: Bool) -> StoredValue {
        guard container.tag.element == .dictionary else {
            let items = Array(pendingItems[container.base...])
            pendingItems.removeSubrange(container.base...)
            return .array(items)
        }
        var result = [String: StoredValue](minimumCapacity: pendingEntries.count - container.base)
        // Later exact duplicates win, as in Foundation; keys equal only up to normalisation keep the first.
        for entry in pendingEntries[container.base...] {
            equivalentKeys.insert(entry.value, forKey: entry.key, into: &result, atRoot: atRoot)
        }
        pendingEntries.removeSubrange(container.base...)
        return .dictionary(result)
    }

    /// Checks a container nested beyond ``PlistCodec/maximumDepth`` and everything in it without
    /// building values, with a stack of its own rather than the thread's: a file deeper than
    /// StoredKit reads is reported as unsupported only when all of it is well formed, and as
    /// corrupt when any part is not. Returns a placeholder; ``readDocument()`` then throws.
    private mutating func checkTooDeep(_ tag: StartTag) throws(StoreError) -> StoredValue {
        if firstTooDeep == nil { firstTooDeep = tag.offset }
        guard !tag.isEmpty else { return .array([]) }  // `<array/>` holds nothing to check
        var open = [tag]
        while let inner = open.last {
            try skipMarkup(allowingDeclarations: false)
            try requireElementStart(inside: inner)
            if isAtEndTag {
                try readEndTag(of: inner.element)
                open.removeLast()
                continue
            }
            let next = try readStartTag()
            switch next.element {
            case .dictionary, .array: if !next.isEmpty { open.append(next) }
            case .key: if !next.isEmpty { _ = try readText(closing: .key) }
            default: _ = try readScalar(next)
            }
        }
        return .array([])
    }

    /// A scalar, or an empty container (`<array/>`, `<dict/>`); ``readValue(_:)`` reads the others.
    private mutating func readScalar(_ tag: StartTag) throws(StoreError) -> StoredValue {
        switch tag.element {
        case .dictionary: return .dictionary([:])
        case .array: return .array([])
        case .string: return .string(tag.isEmpty ? "" : try readText(closing: .string))
        case .true, .false:
            if !tag.isEmpty {
                try skipMarkup(allowingDeclarations: false)
                try readEndTag(of: tag.element)
            }
            return .bool(tag.element == .true)
        case .integer:
            let text = try readScalarText(tag)
            guard let value = PlistScalarText.integer(text) else {
                if PlistScalarText.isWholeNumber(text) {
                    throw StoreError.unsupportedFile(
                        path: path, reason: "an integer beyond 64 bits, '\(preview(text))', at byte \(tag.offset)",
                        advice: "Remove that value with the program that wrote the file, or keep using that program for it.")
                }
                throw invalidScalar("integer", text, tag)
            }
            return value
        case .real:
            let text = try readScalarText(tag)
            guard let value = PlistScalarText.real(text) else { throw invalidScalar("real", text, tag) }
            return .double(value)
        case .date:
            let text = try readScalarText(tag)
            guard let value = PlistScalarText.date(text) else {
                throw invalidScalar("date (want YYYY-MM-DDTHH:MM:SSZ)", text, tag)
            }
            return .date(value)
        case .data:
            let textStart = position
            let text = try readScalarText(tag)
            switch PlistBase64.decode(text) {
            case .bytes(let data): return .data(data)
            case .invalidCharacter(let offset):
                let leadingWhitespace = bytes[textStart...].prefix(while: isWhitespace).count
                throw failure("invalid base64 character in <data> at byte \(textStart + leadingWhitespace + offset)")
            case .truncated: throw failure("truncated base64 in <data> at byte \(tag.offset)")
            }
        case .key: throw failure("<key> outside a <dict> at byte \(tag.offset)")
        case .plist: throw failure("nested <plist> at byte \(tag.offset)")
        }
    }

    /// A dictionary's next `<key>` and the markup up to its value.
    private mutating func readKey(inside tag: StartTag) throws(StoreError) -> String {
        let keyTag = try readStartTag()
        guard keyTag.element == .key else {
            throw failure("expected <key> but found <\(keyTag.element.name)> at byte \(keyTag.offset)")
        }
        let key = keyTag.isEmpty ? "" : try readText(closing: .key)
        try skipMarkup(allowingDeclarations: false)
        try requireElementStart(inside: tag)
        guard !isAtEndTag else { throw failure("key '\(key)' has no value (byte \(position))") }
        return key
    }

    private func requireElementStart(inside tag: StartTag) throws(StoreError) {
        guard position < bytes.count else {
            throw failure("unexpected end of file at byte \(position) inside <\(tag.element.name)> opened at byte \(tag.offset)")
        }
        guard bytes[position] == UInt8(ascii: "<") else {
            throw failure("unexpected text '\(preview(position..<bytes.count))' at byte \(position)")
        }
    }

    // MARK: Text

    /// Reads character data up to the closing tag, decoding entities and CDATA sections.
    private mutating func readText(closing element: PlistXMLElement) throws(StoreError) -> String {
        let start = position
        var highBits: UInt8 = 0
        while position < bytes.count, bytes[position] != UInt8(ascii: "<"), bytes[position] != UInt8(ascii: "&") {
            highBits |= bytes[position]
            position += 1
        }
        if isAtEndTag {
            let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
            // ASCII needs no validation; most keys and many values are ASCII.
            let string = highBits < 0x80 ? String(decoding: text, as: UTF8.self) : try makeString(text, offset: start)
            try readEndTag(of: element)
            return string
        }
        var buffer = Array(bytes[start..<position])
        while !isAtEndTag {
            guard position < bytes.count else { throw failure("unexpected end of file at byte \(position) in <\(element.name)>") }
            if bytes[position] == UInt8(ascii: "&") {
                try appendEntity(to: &buffer)
            } else if bytes[position] != UInt8(ascii: "<") {
                let runStart = position
                while position < bytes.count, bytes[position] != UInt8(ascii: "<"), bytes[position] != UInt8(ascii: "&") {
                    position += 1
                }
                buffer.append(contentsOf: bytes[runStart..<position])
            } else if hasPrefix("<![CDATA[") {
                let contentStart = position + 9
                guard let end = find("]]>", from: contentStart) else { throw failure("unterminated CDATA at byte \(position)") }
                buffer.append(contentsOf: bytes[contentStart..<end])
                position = end + 3
            } else if hasPrefix("<!--") {
                try skipComment()
            } else if hasPrefix("<?") {
                try skipProcessingInstruction()
            } else {
                throw failure("unexpected '<' in <\(element.name)> at byte \(position); escape it as &lt;")
            }
        }
        let text = try buffer.withUnsafeBufferPointer { (text) throws(StoreError) in try makeString(text, offset: start) }
        try readEndTag(of: element)
        return text
    }

    private func makeString(_ text: UnsafeBufferPointer<UInt8>, offset: Int) throws(StoreError) -> String {
        guard let string = String(validating: text, as: UTF8.self) else {
            throw failure("invalid UTF-8 in text starting at byte \(offset)")
        }
        return string
    }

    private mutating func appendEntity(to buffer: inout [UInt8]) throws(StoreError) {
        let start = position
        let limit = min(bytes.count, start + 12)
        guard let semicolon = (start + 1..<limit).first(where: { bytes[$0] == UInt8(ascii: ";") }) else {
            throw failure("unterminated entity '\(preview(start..<limit))' at byte \(start)")
        }
        let name = UnsafeBufferPointer(rebasing: bytes[start + 1..<semicolon])
        position = semicolon + 1
        switch String(decoding: name, as: UTF8.self) {
        case "lt": buffer.append(UInt8(ascii: "<"))
        case "gt": buffer.append(UInt8(ascii: ">"))
        case "amp": buffer.append(UInt8(ascii: "&"))
        case "quot": buffer.append(UInt8(ascii: "\""))
        case "apos": buffer.append(UInt8(ascii: "'"))
        case let reference where reference.hasPrefix("#"):
            let isHex = reference.hasPrefix("#x") || reference.hasPrefix("#X")
            let digits = reference.dropFirst(isHex ? 2 : 1)
            guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit), let code = UInt32(digits, radix: isHex ? 16 : 10),
                let scalar = Unicode.Scalar(code)
            else { throw failure("invalid character reference '&\(reference);' at byte \(start)") }
            UTF8.encode(scalar) { buffer.append($0) }
        case let other: throw failure("unknown entity '&\(other);' at byte \(start)")
        }
    }

    /// The raw content of a scalar element with surrounding whitespace removed.
    private mutating func readScalarText(_ tag: StartTag) throws(StoreError) -> UnsafeBufferPointer<UInt8> {
        if tag.isEmpty { return UnsafeBufferPointer(rebasing: bytes[position..<position]) }
        var start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: "<") { position += 1 }
        var end = position
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        try readEndTag(of: tag.element)
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    private func invalidScalar(_ kind: String, _ text: UnsafeBufferPointer<UInt8>, _ tag: StartTag) -> StoreError {
        failure("invalid \(kind) '\(preview(text))' at byte \(tag.offset)")
    }
}

extension PlistXMLReader {
    // MARK: Markup

    private var isAtEndTag: Bool {
        position + 1 < bytes.count && bytes[position] == UInt8(ascii: "<") && bytes[position + 1] == UInt8(ascii: "/")
    }

    private func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// Skips whitespace, comments and processing instructions, plus `<!DOCTYPE ...>` outside the
    /// root element (`allowingDeclarations`). XML allows processing instructions anywhere between
    /// elements, and Foundation and plistlib skip them; any other `<!` declaration is refused, as
    /// both of them refuse it.
    private mutating func skipMarkup(allowingDeclarations: Bool) throws(StoreError) {
        while position < bytes.count {
            if isWhitespace(bytes[position]) {
                position += 1
            } else if hasPrefix("<!--") {
                try skipComment()
            } else if hasPrefix("<?") {
                try skipProcessingInstruction()
            } else if allowingDeclarations, hasPrefix("<!DOCTYPE") {
                try skipDeclaration()
            } else if hasPrefix("<!") {
                let place = allowingDeclarations ? "" : " inside an element"
                throw failure("unexpected declaration '\(preview(position..<bytes.count))'\(place) at byte \(position)")
            } else {
                return
            }
        }
    }

    /// `<?xml` followed by whitespace: the XML declaration, valid only at the start of the file.
    private var isAtXMLDeclaration: Bool {
        hasPrefix("<?xml") && position + 5 < bytes.count && isWhitespace(bytes[position + 5])
    }

    private mutating func skipProcessingInstruction() throws(StoreError) {
        if isAtXMLDeclaration { throw failure("XML declaration not at the start of the file (byte \(position))") }
        guard let end = find("?>", from: position + 2) else {
            throw failure("unterminated processing instruction at byte \(position)")
        }
        position = end + 2
    }

    private mutating func skipComment() throws(StoreError) {
        guard let end = find("-->", from: position + 4) else { throw failure("unterminated comment at byte \(position)") }
        position = end + 3
    }

    /// Skips `<!DOCTYPE ...>` including an internal subset in brackets and quoted identifiers.
    private mutating func skipDeclaration() throws(StoreError) {
        let start = position
        var bracketDepth = 0
        var quote: UInt8?
        position += 2
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                bracketDepth += 1
            } else if byte == UInt8(ascii: "]") {
                bracketDepth -= 1
            } else if byte == UInt8(ascii: ">"), bracketDepth <= 0 {
                return
            }
        }
        throw failure("unterminated declaration starting at byte \(start)")
    }

    private mutating func readStartTag() throws(StoreError) -> StartTag {
        let start = position
        position += 1
        let nameStart = position
        while position < bytes.count, !isWhitespace(bytes[position]), bytes[position] != UInt8(ascii: "/"),
            bytes[position] != UInt8(ascii: ">")
        {
            position += 1
        }
        let name = nameStart..<position
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                break
            }
            position += 1
        }
        guard position < bytes.count else {
            throw failure("unexpected end of file at byte \(position) in the tag at byte \(start)")
        }
        let isEmpty = bytes[position - 1] == UInt8(ascii: "/")
        position += 1
        guard let element = PlistXMLElement(named: name, in: bytes) else {
            throw failure("unknown element <\(preview(name))> at byte \(start)")
        }
        return StartTag(element: element, isEmpty: isEmpty, offset: start)
    }

    private mutating func readEndTag(of element: PlistXMLElement) throws(StoreError) {
        let start = position
        let name = element.name
        let nameEnd = position + 2 + name.utf8CodeUnitCount
        guard isAtEndTag, nameEnd <= bytes.count, matches(position + 2..<nameEnd, name) else {
            guard position < bytes.count else { throw failure("unexpected end of file at byte \(position); expected </\(name)>") }
            throw failure("expected </\(name)> at byte \(start)")
        }
        position = nameEnd
        while position < bytes.count, isWhitespace(bytes[position]) { position += 1 }
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
            throw failure("malformed </\(name)> at byte \(start)")
        }
        position += 1
    }

    private func matches(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        PlistXMLElement.bytes(bytes, in: range, equal: literal)
    }

    private func hasPrefix(_ literal: StaticString) -> Bool {
        let end = position + literal.utf8CodeUnitCount
        return end <= bytes.count && matches(position..<end, literal)
    }

    private func find(_ literal: StaticString, from start: Int) -> Int? {
        let length = literal.utf8CodeUnitCount
        let first = literal.utf8Start[0]
        var index = start
        while index + length <= bytes.count {
            if bytes[index] == first, matches(index..<index + length, literal) { return index }
            index += 1
        }
        return nil
    }

    private func preview(_ range: Range<Int>) -> String {
        preview(UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<min(range.upperBound, range.lowerBound + 40)]))
    }

    private func preview(_ text: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: text.prefix(40), as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }

    private func failure(_ reason: String) -> StoreError {
        .corruptFile(path: path, reason: reason, quarantinedAt: nil)
    }
}
