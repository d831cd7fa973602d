import Foundation

/// Reads Apple's binary property list format (`bplist00`) into ``StoredValue``.
///
/// Every offset, count and object reference is bounds-checked before use. Objects reached again while
/// still being decoded are cycles and rejected; objects shared legitimately (Foundation deduplicates
/// strings) are decoded once and reused, and the expanded size is capped so a file of shared
/// containers cannot blow up exponentially.
struct PlistBinaryReader {
    private static let trailerLength = 32
    private static let headerLength = 8

    private struct Decoded {
        let value: StoredValue
        /// Number of values this object expands to, counting shared objects once per reference.
        let weight: Int
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let path: String
    private var offsetTableStart = 0
    private var offsetSize = 0
    private var referenceSize = 0
    private var objectCount = 0
    private var decoded: [Decoded?] = []
    private var inProgress: [Bool] = []
    private var expandedCount = 0
    private let expandedLimit: Int
    /// Where the first container beyond ``PlistCodec/maximumDepth`` starts, once one was checked.
    private var firstTooDeep: Int?
    private var equivalentKeys = PlistEquivalentKeys()

    private init(bytes: UnsafeBufferPointer<UInt8>, path: String) {
        self.bytes = bytes
        self.path = path
        // Without shared containers each value costs at least one reference byte, so a legitimate file
        // expands to fewer values than it has bytes; the slack allows writers that share small containers.
        expandedLimit = 4 * bytes.count + 4_096
    }

    /// True when `bytes` starts with the `bplist` magic (any version; only `00` is supported).
    static func hasMagic(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.starts(with: PlistFormat.binaryMagic)
    }

    /// Parses a whole binary plist; `path` only names the file in errors.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, path: String) throws(StoreError) -> StoredValue {
        var equivalentKeys = PlistEquivalentKeys()
        return try read(bytes, path: path, equivalentKeys: &equivalentKeys)
    }

    /// ``read(_:path:)``, also collecting keys equal only up to Unicode normalisation.
    static func read(
        _ bytes: UnsafeBufferPointer<UInt8>, path: String, equivalentKeys: inout PlistEquivalentKeys
    ) throws(StoreError) -> StoredValue {
        var reader = PlistBinaryReader(bytes: bytes, path: path)
        defer { equivalentKeys = reader.equivalentKeys }
        let topObject = try reader.readTrailer()
        let value = try reader.object(topObject).value
        if let offset = reader.firstTooDeep { throw PlistCodec.tooDeep(path: path, at: offset) }
        return value
    }

    /// Validates the header and trailer and returns the index of the top object.
    private mutating func readTrailer() throws(StoreError) -> Int {
        guard bytes.count >= Self.headerLength, bytes.starts(with: PlistFormat.binaryHeader) else {
            let version = String(decoding: bytes.prefix(8).dropFirst(6), as: UTF8.self)
            throw failure("unsupported binary plist version '\(version)'; only bplist00 is supported")
        }
        guard bytes.count >= Self.headerLength + 1 + Self.trailerLength else {
            throw failure("unexpected end of file at byte \(bytes.count): a binary plist needs at least 41 bytes")
        }
        let trailer = bytes.count - Self.trailerLength
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw failure("invalid trailer at byte \(trailer): offset size \(offsetSize), reference size \(referenceSize)")
        }
        let count = bigEndianInteger(at: trailer + 8, size: 8)
        let top = bigEndianInteger(at: trailer + 16, size: 8)
        let tableStart = bigEndianInteger(at: trailer + 24, size: 8)
        let objectArea = UInt64(trailer - Self.headerLength)
        guard count >= 1, count <= objectArea, top < count, tableStart >= UInt64(Self.headerLength + 1),
            tableStart < UInt64(trailer), (UInt64(trailer) - tableStart) / UInt64(offsetSize) >= count
        else {
            throw failure(
                "invalid trailer at byte \(trailer): \(count) objects, top object \(top), offset table at byte \(tableStart)")
        }
        objectCount = Int(count)
        offsetTableStart = Int(tableStart)
        decoded = Array(repeating: nil, count: objectCount)
        inProgress = Array(repeating: false, count: objectCount)
        return Int(top)
    }

    // MARK: Objects

    /// A container being read: where it is, its layout, what it holds so far, and for a
    /// dictionary the key whose value comes next.
    private struct OpenContainer {
        let index: Int
        let start: Int
        let isDictionary: Bool
        let count: Int
        let referencesStart: Int
        /// ``expandedCount`` before this container was read, for its weight.
        let countBefore: Int
        var next = 0
        var items: [StoredValue] = []
        var entries: [String: StoredValue] = [:]
        var key = ""
    }

    /// Object `root` and everything it holds, read with a stack of open containers of its own
    /// rather than the thread's, so the depth it reads does not depend on the stack size.
    private mutating func object(_ root: Int) throws(StoreError) -> Decoded {
        var open: [OpenContainer] = []
        var result = try begin(root, into: &open)
        while let top = open.indices.last {
            if let decoded = result {
                if open[top].isDictionary {
                    equivalentKeys.insert(decoded.value, forKey: open[top].key, into: &open[top].entries, atRoot: top == 0)
                } else {
                    open[top].items.append(decoded.value)
                }
            }
            let entry = open[top].next
            guard entry < open[top].count else {
                result = try close(open.removeLast())
                continue
            }
            open[top].next += 1
            var valuePosition = open[top].referencesStart + entry * referenceSize
            if open[top].isDictionary {
                open[top].key = try key(at: valuePosition, inDictionaryAt: open[top].start)
                valuePosition += open[top].count * referenceSize
            }
            result = try begin(try reference(at: valuePosition), into: &open)
        }
        guard let result else { throw failure("object \(root) could not be read") }
        return result
    }

    /// Object `index` when it is read already, a scalar, or beyond ``PlistCodec/maximumDepth``
    /// (then only checked); otherwise opens it as a container and returns nil.
    private mutating func begin(_ index: Int, into open: inout [OpenContainer]) throws(StoreError) -> Decoded? {
        if let cached = decoded[index] {
            try count(cached.weight, object: index)
            return cached
        }
        let start = try objectStart(index)
        let countBefore = expandedCount
        let value: StoredValue
        switch bytes[start] >> 4 {
        case 0xA, 0xD:
            guard open.count < PlistCodec.maximumDepth else {
                value = try checkTooDeep(index, at: start)
                break
            }
            let isDictionary = bytes[start] >> 4 == 0xD
            let (count, referencesStart) = try containerLayout(at: start, tables: isDictionary ? 2 : 1)
            var container = OpenContainer(
                index: index, start: start, isDictionary: isDictionary, count: count, referencesStart: referencesStart,
                countBefore: countBefore)
            if isDictionary {
                container.entries.reserveCapacity(count)
            } else {
                container.items.reserveCapacity(count)
            }
            inProgress[index] = true
            open.append(container)
            return nil
        default:
            value = try scalarValue(at: start)
        }
        return try finish(index, value: value, countBefore: countBefore)
    }

    /// The value of a container whose entries were all read.
    private mutating func close(_ container: OpenContainer) throws(StoreError) -> Decoded {
        inProgress[container.index] = false
        let value: StoredValue = container.isDictionary ? .dictionary(container.entries) : .array(container.items)
        return try finish(container.index, value: value, countBefore: container.countBefore)
    }

    /// Counts object `index`, read as `value`, and keeps it for further references.
    private mutating func finish(_ index: Int, value: StoredValue, countBefore: Int) throws(StoreError) -> Decoded {
        try count(1, object: index)
        let result = Decoded(value: value, weight: expandedCount - countBefore)
        decoded[index] = result
        return result
    }

    /// Where object `index` starts, checked.
    private func objectStart(_ index: Int) throws(StoreError) -> Int {
        guard !inProgress[index] else { throw failure("object \(index) contains itself (reference cycle)") }
        let offsetEntry = offsetTableStart + index * offsetSize
        let offset = bigEndianInteger(at: offsetEntry, size: offsetSize)
        guard offset >= UInt64(Self.headerLength), offset < UInt64(offsetTableStart) else {
            throw failure(
                "object \(index) has offset \(offset), outside the object area (offset table entry at byte \(offsetEntry))")
        }
        return Int(offset)
    }

    /// The entry count of the container at `start` and where its references start, checked to
    /// lie inside the object data (`tables` of them: 1 for an array, 2 for a dictionary).
    private func containerLayout(at start: Int, tables: Int) throws(StoreError) -> (count: Int, referencesStart: Int) {
        let (count, referencesStart) = try lengthAndStart(at: start)
        let kind = tables == 1 ? "array" : "dictionary"
        for table in 0..<tables {
            try requireReferences(count, at: referencesStart + table * count * referenceSize, for: "\(kind) at byte \(start)")
        }
        return (count, referencesStart)
    }

    private mutating func count(_ weight: Int, object index: Int) throws(StoreError) {
        expandedCount += weight
        guard expandedCount <= expandedLimit else {
            throw failure("object \(index) is shared so often the plist would expand to over \(expandedLimit) values")
        }
    }

    private mutating func scalarValue(at start: Int) throws(StoreError) -> StoredValue {
        let marker = bytes[start]
        let lowNibble = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw failure("unsupported object type 0x\(hex(marker)) at byte \(start)")
            }
        case 0x1:
            return try integer(at: start + 1, sizeExponent: lowNibble, markerAt: start)
        case 0x2:
            switch lowNibble {
            case 2:
                try requireBytes(4, at: start + 1, for: "real at byte \(start)")
                return .double(Double(Float(bitPattern: UInt32(bigEndianInteger(at: start + 1, size: 4)))))
            case 3:
                try requireBytes(8, at: start + 1, for: "real at byte \(start)")
                return .double(Double(bitPattern: bigEndianInteger(at: start + 1, size: 8)))
            default: throw failure("unsupported real size \(1 << lowNibble) at byte \(start)")
            }
        case 0x3:
            guard marker == 0x33 else { throw failure("unsupported object type 0x\(hex(marker)) at byte \(start)") }
            try requireBytes(8, at: start + 1, for: "date at byte \(start)")
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bigEndianInteger(at: start + 1, size: 8))))
        case 0x4:
            let (length, contentStart) = try lengthAndStart(at: start)
            try requireBytes(length, at: contentStart, for: "data at byte \(start)")
            return .data(Data(buffer: UnsafeBufferPointer(rebasing: bytes[contentStart..<contentStart + length])))
        case 0x5:
            let (length, contentStart) = try lengthAndStart(at: start)
            try requireBytes(length, at: contentStart, for: "string at byte \(start)")
            let text = UnsafeBufferPointer(rebasing: bytes[contentStart..<contentStart + length])
            if let invalid = text.firstIndex(where: { $0 >= 0x80 }) {
                throw failure("non-ASCII byte in ASCII string at byte \(contentStart + invalid)")
            }
            return .string(String(decoding: text, as: UTF8.self))
        case 0x6:
            return .string(try utf16String(at: start))
        case 0x8:
            throw unsupported("a UID (an NSKeyedArchiver object reference) at byte \(start)")
        default:
            throw failure("unsupported object type 0x\(hex(marker)) at byte \(start)")
        }
    }

    private mutating func integer(at start: Int, sizeExponent: Int, markerAt marker: Int) throws(StoreError) -> StoredValue {
        guard sizeExponent <= 4 else { throw failure("unsupported integer size \(1 << sizeExponent) at byte \(marker)") }
        let size = 1 << sizeExponent
        try requireBytes(size, at: start, for: "integer at byte \(marker)")
        switch size {
        case 16:
            let high = bigEndianInteger(at: start, size: 8)
            let low = bigEndianInteger(at: start + 8, size: 8)
            if high == 0 { return StoredValue(low) }
            if high == UInt64.max, Int64(bitPattern: low) < 0 { return .int(Int64(bitPattern: low)) }
            throw unsupported("an integer beyond 64 bits at byte \(marker)")
        case 8:
            return .int(Int64(bitPattern: bigEndianInteger(at: start, size: 8)))
        default:
            // Sizes below 8 bytes are unsigned in bplist00.
            return .int(Int64(bigEndianInteger(at: start, size: size)))
        }
    }

    private mutating func utf16String(at start: Int) throws(StoreError) -> String {
        let (length, contentStart) = try lengthAndStart(at: start)
        guard contentStart <= offsetTableStart, length <= (offsetTableStart - contentStart) / 2 else {
            throw failure("unexpected end of object data: string at byte \(start) claims \(length) UTF-16 units")
        }
        let units = [UInt16](unsafeUninitializedCapacity: length) { buffer, initialized in
            for unit in 0..<length {
                let position = contentStart + unit * 2
                buffer[unit] = UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
            }
            initialized = length
        }
        guard let string = String(validating: units, as: UTF16.self) else {
            throw failure("invalid UTF-16 (unpaired surrogate) in string at byte \(start)")
        }
        return string
    }

    /// Checks a container nested beyond ``PlistCodec/maximumDepth`` and everything in it without
    /// building values, with a stack of its own rather than the thread's: a file deeper than
    /// StoredKit reads is reported as unsupported only when all of it is well formed, and as
    /// corrupt when any part is not. Returns a placeholder; ``read(_:path:equivalentKeys:)`` throws.
    private mutating func checkTooDeep(_ index: Int, at start: Int) throws(StoreError) -> StoredValue {
        if firstTooDeep == nil { firstTooDeep = start }
        var checked = Set<Int>()
        var stack = [(index: index, children: try children(of: start), next: 0)]
        inProgress[index] = true
        while let top = stack.indices.last {
            guard stack[top].next < stack[top].children.count else {
                inProgress[stack[top].index] = false
                checked.insert(stack[top].index)
                stack.removeLast()
                continue
            }
            let child = stack[top].children[stack[top].next]
            stack[top].next += 1
            if checked.contains(child) || decoded[child] != nil { continue }
            let childStart = try objectStart(child)
            if bytes[childStart] >> 4 == 0xA || bytes[childStart] >> 4 == 0xD {
                stack.append((child, try children(of: childStart), 0))
                inProgress[child] = true
            } else {
                _ = try scalarValue(at: childStart)
                checked.insert(child)
            }
        }
        return .array([])
    }

    /// The object references of the array or dictionary at `start` (a dictionary's keys first,
    /// each checked to be a string).
    private func children(of start: Int) throws(StoreError) -> [Int] {
        let isDictionary = bytes[start] >> 4 == 0xD
        let (count, referencesStart) = try containerLayout(at: start, tables: isDictionary ? 2 : 1)
        var children: [Int] = []
        for position in 0..<(isDictionary ? 2 * count : count) {
            children.append(try reference(at: referencesStart + position * referenceSize))
        }
        for key in children.prefix(isDictionary ? count : 0) {
            let keyStart = try objectStart(key)
            guard bytes[keyStart] >> 4 == 0x5 || bytes[keyStart] >> 4 == 0x6 else {
                throw failure("dictionary at byte \(start) has a non-string key (object \(key))")
            }
        }
        return children
    }

    /// The key whose reference is at `position`: a string object, never a container.
    private mutating func key(at position: Int, inDictionaryAt start: Int) throws(StoreError) -> String {
        let keyReference = try reference(at: position)
        if decoded[keyReference] == nil {
            let kind = bytes[try objectStart(keyReference)] >> 4
            guard kind != 0xA, kind != 0xD else { throw nonStringKey(keyReference, inDictionaryAt: start) }
        }
        var none: [OpenContainer] = []
        guard case .string(let key)? = try begin(keyReference, into: &none)?.value else {
            throw nonStringKey(keyReference, inDictionaryAt: start)
        }
        return key
    }

    private func nonStringKey(_ reference: Int, inDictionaryAt start: Int) -> StoreError {
        failure("dictionary at byte \(start) has a non-string key (object \(reference))")
    }
}

extension PlistBinaryReader {
    // MARK: Bytes

    /// Reads the count in a marker's low nibble, or the integer object following it when the nibble is 0xF.
    private func lengthAndStart(at start: Int) throws(StoreError) -> (length: Int, contentStart: Int) {
        let nibble = Int(bytes[start] & 0x0F)
        guard nibble == 0x0F else { return (nibble, start + 1) }
        guard start + 1 < offsetTableStart else { throw failure("unexpected end of object data at byte \(start + 1)") }
        let marker = bytes[start + 1]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
            throw failure("invalid length marker 0x\(hex(marker)) at byte \(start + 1)")
        }
        let size = 1 << Int(marker & 0x0F)
        try requireBytes(size, at: start + 2, for: "length at byte \(start + 1)")
        let length = bigEndianInteger(at: start + 2, size: size)
        guard length <= UInt64(offsetTableStart) else {
            throw failure("length \(length) at byte \(start + 1) runs past the object data (ends at byte \(offsetTableStart))")
        }
        return (Int(length), start + 2 + size)
    }

    /// Objects must end before the offset table, as Foundation requires.
    private func requireBytes(_ length: Int, at start: Int, for what: @autoclosure () -> String) throws(StoreError) {
        guard start <= offsetTableStart, length <= offsetTableStart - start else {
            throw failure("unexpected end of object data at byte \(offsetTableStart) in \(what())")
        }
    }

    private func requireReferences(_ count: Int, at start: Int, for what: @autoclosure () -> String) throws(StoreError) {
        guard start <= offsetTableStart, count <= (offsetTableStart - start) / referenceSize else {
            throw failure("unexpected end of object data at byte \(offsetTableStart) in \(what()) of \(count) entries")
        }
    }

    private func reference(at position: Int) throws(StoreError) -> Int {
        let reference = bigEndianInteger(at: position, size: referenceSize)
        guard reference < UInt64(objectCount) else {
            throw failure("object reference \(reference) at byte \(position) is beyond the \(objectCount) objects")
        }
        return Int(reference)
    }

    /// The caller has checked that `size` bytes are available at `position`.
    private func bigEndianInteger(at position: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for offset in 0..<size { value = value << 8 | UInt64(bytes[position + offset]) }
        return value
    }

    private func hex(_ byte: UInt8) -> String {
        String(byte, radix: 16, uppercase: true)
    }

    private func failure(_ reason: String) -> StoreError {
        .corruptFile(path: path, reason: reason, quarantinedAt: nil)
    }

    /// A well-formed value that has no ``StoredValue`` case: the file is not damaged.
    private func unsupported(_ what: String) -> StoreError {
        .unsupportedFile(
            path: path, reason: what,
            advice: "Remove that value with the program that wrote the file, or keep using that program for it.")
    }
}
