import Foundation

/// Writes a ``StoredValue`` as an XML property list laid out exactly as Foundation lays it out
/// (header, DOCTYPE, tab indentation, sorted keys), so files are deterministic and diff cleanly.
struct PlistXMLWriter {
    private var output: [UInt8] = []
    private var currentKey = ""

    /// Encodes `value` as a complete XML plist document in UTF-8; `hiddenRootEntries` (keys equal
    /// to a root key only up to Unicode normalisation) are written back beside the key they follow.
    static func encode(
        _ value: StoredValue, hiddenRootEntries: [PlistEquivalentKeys.Entry] = []
    ) throws(StoreError) -> [UInt8] {
        var writer = PlistXMLWriter()
        writer.output.reserveCapacity(4_096)
        writer.append(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        )
        if !hiddenRootEntries.isEmpty, case .dictionary(let entries) = value {
            try writer.write(rootEntries: PlistEquivalentKeys.ordered(entries, with: hiddenRootEntries))
        } else {
            try writer.write(value)
        }
        writer.append("</plist>\n")
        return writer.output
    }

    /// A container being written: an array's items or a dictionary's entries in writing order (held
    /// as they are, not copied), and the next one.
    private struct OpenContainer {
        var items: [StoredValue] = []
        var entries: [(key: String, value: StoredValue)] = []
        let isArray: Bool
        var next = 0
        var count: Int { isArray ? items.count : entries.count }
    }

    /// Writes `root` with a stack of open containers of its own rather than the thread's, so the
    /// depth it writes does not depend on the stack size; each value is indented by its depth.
    private mutating func write(_ root: StoredValue) throws(StoreError) {
        var open: [OpenContainer] = []
        try write(root, into: &open)
        try finish(&open)
    }

    /// Writes a root dictionary whose entries are already in writing order.
    private mutating func write(rootEntries: [(key: String, value: StoredValue)]) throws(StoreError) {
        var open: [OpenContainer] = []
        try openDictionary(rootEntries, into: &open)
        try finish(&open)
    }

    /// Writes the rest of every open container, innermost first, and closes it.
    private mutating func finish(_ open: inout [OpenContainer]) throws(StoreError) {
        while let top = open.indices.last {
            let index = open[top].next
            guard index < open[top].count else {
                appendIndentation(top)
                append(open[top].isArray ? "</array>\n" : "</dict>\n")
                open.removeLast()
                continue
            }
            open[top].next += 1
            guard !open[top].isArray else {
                try write(open[top].items[index], into: &open)
                continue
            }
            let (key, value) = open[top].entries[index]
            currentKey = key
            appendIndentation(top + 1)
            append("<key>")
            appendEscaped(key)
            append("</key>\n")
            try write(value, into: &open)
        }
    }

    /// Writes a scalar or an empty container whole, or the start of a container, which it opens.
    private mutating func write(_ value: StoredValue, into open: inout [OpenContainer]) throws(StoreError) {
        appendIndentation(open.count)
        switch value {
        case .array(let items):
            // An empty container is a level like any other, as the readers count it.
            try checkDepth(open.count)
            guard !items.isEmpty else { return append("<array/>\n") }
            append("<array>\n")
            open.append(OpenContainer(items: items, isArray: true))
        case .dictionary(let entries):
            try openDictionary(entries.sorted(by: { $0.key < $1.key }), into: &open)
        default:
            try writeScalar(value, indentation: open.count)
        }
    }

    private mutating func openDictionary(
        _ entries: [(key: String, value: StoredValue)], into open: inout [OpenContainer]
    ) throws(StoreError) {
        try checkDepth(open.count)
        guard !entries.isEmpty else { return append("<dict/>\n") }
        append("<dict>\n")
        open.append(OpenContainer(entries: entries, isArray: false))
    }

    /// A scalar, its indentation already written.
    private mutating func writeScalar(_ value: StoredValue, indentation: Int) throws(StoreError) {
        switch value {
        case .bool(let flag):
            append(flag ? "<true/>\n" : "<false/>\n")
        case .int(let integer):
            append("<integer>")
            if integer < 0 { output.append(UInt8(ascii: "-")) }
            appendDecimal(integer.magnitude)
            append("</integer>\n")
        case .uint(let integer):
            append("<integer>")
            appendDecimal(integer)
            append("</integer>\n")
        case .double(let real):
            append("<real>")
            output.append(contentsOf: PlistScalarText.realText(real).utf8)
            append("</real>\n")
        case .string(let string):
            append("<string>")
            appendEscaped(string)
            append("</string>\n")
        case .data(let data):
            append("<data>\n")
            PlistBase64.appendLines(of: data, indentation: indentation, to: &output)
            appendIndentation(indentation)
            append("</data>\n")
        case .date(let date):
            guard let text = PlistScalarText.dateText(date) else {
                throw StoreError.unrepresentable(
                    key: currentKey,
                    reason: "date \(date.timeIntervalSinceReferenceDate) has no XML plist form; use the binary format")
            }
            append("<date>")
            output.append(contentsOf: text.utf8)
            append("</date>\n")
        case .array, .dictionary:
            break  // written by write(_:into:)
        }
    }

    private func checkDepth(_ indentation: Int) throws(StoreError) {
        guard indentation < PlistCodec.maximumDepth else {
            throw StoreError.unrepresentable(key: currentKey, reason: StoredValue.tooDeepReason)
        }
    }

    private mutating func append(_ literal: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private mutating func appendIndentation(_ count: Int) {
        for _ in 0..<count { output.append(UInt8(ascii: "\t")) }
    }

    private mutating func appendDecimal(_ value: UInt64) {
        let start = output.count
        var remaining = value
        repeat {
            output.append(UInt8(ascii: "0") + UInt8(remaining % 10))
            remaining /= 10
        } while remaining > 0
        output[start...].reverse()
    }

    /// Escapes markup characters; CR and other control characters become character references so that
    /// XML tools which normalise line ends or reject raw controls keep the exact string.
    private mutating func appendEscaped(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                // Every byte that needs escaping is at most '>' (0x3E); the rest are copied in runs.
                guard byte <= UInt8(ascii: ">") else { continue }
                switch byte {
                case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"), 0..<0x09, 0x0B..<0x20:
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                    runStart = index + 1
                    switch byte {
                    case UInt8(ascii: "<"): append("&lt;")
                    case UInt8(ascii: ">"): append("&gt;")
                    case UInt8(ascii: "&"): append("&amp;")
                    default:
                        append("&#")
                        appendDecimal(UInt64(byte))
                        output.append(UInt8(ascii: ";"))
                    }
                default:
                    continue
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
    }
}
