import Foundation

/// Writes a ``StoredValue`` as a `bplist00` binary property list that Foundation reads.
///
/// Objects are written children-first, so a container's references are known when it is written and
/// no second pass over the output is needed; the top object is therefore the last one, which the
/// trailer records. Equal ASCII strings (mostly repeated keys) are stored once.
struct PlistBinaryWriter {
    private var output: [UInt8] = PlistFormat.binaryHeader
    private var offsets: [Int] = []
    private var referenceSize = 1
    /// Child object indices of the containers being written, innermost last.
    private var pendingReferences: [Int] = []
    /// Only ASCII strings are shared: Swift's `String ==` merges canonically equivalent Unicode
    /// strings, and sharing those would silently change the bytes of one of them.
    private var asciiStringIndices: [String: Int] = [:]

    /// Encodes `value` as a complete binary plist; `hiddenRootEntries` (keys equal to a root key
    /// only up to Unicode normalisation) are written back beside the key they follow.
    static func encode(
        _ value: StoredValue, hiddenRootEntries: [PlistEquivalentKeys.Entry] = []
    ) throws(StoreError) -> [UInt8] {
        var objectLimit = try objectCountUpperBound(value, depth: 0, key: "")
        for entry in hiddenRootEntries {
            objectLimit += 1 + (try objectCountUpperBound(entry.value, depth: 1, key: entry.key))
        }
        var writer = PlistBinaryWriter()
        writer.referenceSize = byteCount(UInt64(objectLimit - 1))
        writer.output.reserveCapacity(objectLimit * 8 + 64)
        writer.offsets.reserveCapacity(objectLimit)
        let top: Int
        var open: [OpenContainer] = []
        if !hiddenRootEntries.isEmpty, case .dictionary(let entries) = value {
            writer.openDictionary(PlistEquivalentKeys.ordered(entries, with: hiddenRootEntries), into: &open)
            top = writer.finish(&open, written: nil)
        } else {
            top = writer.finish(&open, written: writer.begin(value, into: &open))
        }
        return writer.finish(topObject: top)
    }

    /// Counts objects as if nothing were shared, which also enforces the depth limit before writing;
    /// `depth` is the depth of `value`, `key` the key it is under. A walk with a work list of its own.
    private static func objectCountUpperBound(_ value: StoredValue, depth: Int, key: String) throws(StoreError) -> Int {
        var total = 0
        var pending = [(value: value, depth: depth, key: key)]
        while let (next, depth, key) = pending.popLast() {
            total += 1
            switch next {
            case .array(let items):
                try checkDepth(depth, key: key)
                for item in items { pending.append((item, depth + 1, key)) }
            case .dictionary(let entries):
                try checkDepth(depth, key: key)
                for (entryKey, entry) in entries {
                    total += 1
                    pending.append((entry, depth + 1, entryKey))
                }
            default:
                break
            }
        }
        return total
    }

    private static func checkDepth(_ depth: Int, key: String) throws(StoreError) {
        guard depth < PlistCodec.maximumDepth else {
            throw StoreError.unrepresentable(key: key, reason: StoredValue.tooDeepReason)
        }
    }

    private static func byteCount(_ value: UInt64) -> Int {
        switch value {
        case 0...0xFF: 1
        case 0...0xFFFF: 2
        case 0...0xFFFF_FFFF: 4
        default: 8
        }
    }

    private mutating func finish(topObject: Int) -> [UInt8] {
        let tableStart = output.count
        let offsetSize = Self.byteCount(UInt64(offsets.last ?? 0))
        for offset in offsets { appendBigEndian(UInt64(offset), size: offsetSize) }
        output.append(contentsOf: repeatElement(0, count: 6))
        output.append(UInt8(offsetSize))
        output.append(UInt8(referenceSize))
        appendBigEndian(UInt64(offsets.count), size: 8)
        appendBigEndian(UInt64(topObject), size: 8)
        appendBigEndian(UInt64(tableStart), size: 8)
        return output
    }

    /// A container being written: its values in writing order, the next one, and where its
    /// children's object indices start in `pendingReferences` (a dictionary's keys are there first).
    private struct OpenContainer {
        let values: [StoredValue]
        var next = 0
        let isArray: Bool
        let base: Int
    }

    /// Writes the rest of every open container, children first, with a stack of its own rather than
    /// the thread's; `written` is the object index of the value just written, if any. Returns the
    /// index of the outermost value, the last object written.
    private mutating func finish(_ open: inout [OpenContainer], written: Int?) -> Int {
        var written = written
        while let top = open.indices.last {
            if let index = written { pendingReferences.append(index) }
            if open[top].next < open[top].values.count {
                let value = open[top].values[open[top].next]
                open[top].next += 1
                written = begin(value, into: &open)
            } else {
                let container = open.removeLast()
                let index = beginObject()
                appendMarker(container.isArray ? 0xA : 0xD, count: container.values.count)
                appendPendingReferences(from: container.base)
                written = index
            }
        }
        // Children are written first, so the outermost value is always the last object.
        return written ?? offsets.count - 1
    }

    /// Writes a scalar and returns its object index, or opens a container and returns nil.
    private mutating func begin(_ value: StoredValue, into open: inout [OpenContainer]) -> Int? {
        switch value {
        case .string(let string):
            return write(string)
        case .array(let items):
            open.append(OpenContainer(values: items, isArray: true, base: pendingReferences.count))
            return nil
        case .dictionary(let entries):
            openDictionary(entries.sorted { $0.key < $1.key }, into: &open)
            return nil
        default:
            let index = beginObject()
            appendScalar(value)
            return index
        }
    }

    /// Writes a dictionary's keys and opens it for its values, its entries already in writing order.
    private mutating func openDictionary(_ sorted: [(key: String, value: StoredValue)], into open: inout [OpenContainer]) {
        let base = pendingReferences.count
        for (key, _) in sorted { pendingReferences.append(write(key)) }
        open.append(OpenContainer(values: sorted.map(\.value), isArray: false, base: base))
    }

    private mutating func appendScalar(_ value: StoredValue) {
        switch value {
        case .bool(let flag):
            output.append(flag ? 0x09 : 0x08)
        case .int(let integer):
            if integer >= 0 {
                appendIntegerObject(UInt64(integer))
            } else {
                output.append(0x13)
                appendBigEndian(UInt64(bitPattern: integer), size: 8)
            }
        case .uint(let integer):
            if integer <= UInt64(Int64.max) {
                appendIntegerObject(integer)
            } else {
                // Foundation stores integers above Int64.max as 16-byte integers with a zero high half.
                output.append(0x14)
                appendBigEndian(0, size: 8)
                appendBigEndian(integer, size: 8)
            }
        case .double(let real):
            output.append(0x23)
            appendBigEndian(real.bitPattern, size: 8)
        case .date(let date):
            output.append(0x33)
            appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
        case .data(let data):
            appendMarker(0x4, count: data.count)
            output.append(contentsOf: data)
        case .string, .array, .dictionary:
            break  // written by begin(_:into:) and finish(_:written:)
        }
    }

    private mutating func write(_ string: String) -> Int {
        var string = string
        let isASCII = string.withUTF8 { utf8 in utf8.allSatisfy { $0 < 0x80 } }
        if isASCII, let existing = asciiStringIndices[string] { return existing }
        let index = beginObject()
        if isASCII {
            string.withUTF8 { utf8 in
                appendMarker(0x5, count: utf8.count)
                output.append(contentsOf: utf8)
            }
            asciiStringIndices[string] = index
        } else {
            appendMarker(0x6, count: string.utf16.count)
            for unit in string.utf16 {
                output.append(UInt8(truncatingIfNeeded: unit >> 8))
                output.append(UInt8(truncatingIfNeeded: unit))
            }
        }
        return index
    }

    private mutating func beginObject() -> Int {
        offsets.append(output.count)
        return offsets.count - 1
    }

    private mutating func appendPendingReferences(from base: Int) {
        for reference in pendingReferences[base...] { appendBigEndian(UInt64(reference), size: referenceSize) }
        pendingReferences.removeSubrange(base...)
    }

    /// A type nibble with the count inline, or 0xF followed by an integer object for 15 and up.
    private mutating func appendMarker(_ type: UInt8, count: Int) {
        if count < 15 {
            output.append(type << 4 | UInt8(count))
        } else {
            output.append(type << 4 | 0x0F)
            appendIntegerObject(UInt64(count))
        }
    }

    /// Non-negative integers in the smallest of 1, 2, 4 or 8 bytes, as Foundation writes them.
    private mutating func appendIntegerObject(_ value: UInt64) {
        let size = Self.byteCount(value)
        output.append(0x10 | UInt8(size.trailingZeroBitCount))
        appendBigEndian(value, size: size)
    }

    private mutating func appendBigEndian(_ value: UInt64, size: Int) {
        var shift = (size - 1) * 8
        while shift >= 0 {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }
}
