import Foundation

/// Base64 for `<data>` elements: decoding skips the line breaks and indentation Foundation writes,
/// encoding wraps lines the way Foundation does so our files diff cleanly against its own.
enum PlistBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let invalid: UInt8 = 0xFF
    private static let whitespace: UInt8 = 0xFE

    private static let decodingTable: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        for character in " \t\r\n".utf8 { table[Int(character)] = whitespace }
        return table
    }()

    /// The outcome of decoding: the bytes, or the offset (within the text) of the first bad character.
    enum Decoded {
        case bytes(Data)
        case invalidCharacter(offset: Int)
        case truncated
    }

    /// Decodes base64 text, ignoring whitespace; `=` padding ends the data.
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> Decoded {
        let table = decodingTable
        var output = [UInt8]()
        output.reserveCapacity(text.count / 4 * 3 + 3)
        var accumulator: UInt32 = 0
        var pending = 0
        var index = 0
        while index < text.count {
            let character = text[index]
            if character == UInt8(ascii: "=") { break }
            let value = table[Int(character)]
            if value == whitespace {
                index += 1
                continue
            }
            guard value != invalid else { return .invalidCharacter(offset: index) }
            accumulator = accumulator << 6 | UInt32(value)
            pending += 1
            if pending == 4 {
                output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                output.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                pending = 0
            }
            index += 1
        }
        while index < text.count {
            let value = table[Int(text[index])]
            guard text[index] == UInt8(ascii: "=") || value == whitespace else { return .invalidCharacter(offset: index) }
            index += 1
        }
        switch pending {
        case 0: break
        case 2: output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default: return .truncated
        }
        return .bytes(Data(output))
    }

    /// Appends `data` as base64 lines, each preceded by `indentation` tabs and followed by a newline.
    static func appendLines(of data: Data, indentation: Int, to output: inout [UInt8]) {
        // Foundation narrows lines by one tab stop (8 columns) per level so they stay within 76 columns.
        let lineLength = max(76 - 8 * min(indentation, 8), 12) / 4 * 4
        data.withUnsafeBytes { raw in
            var index = 0
            var column = 0
            while index < raw.count {
                if column == 0 { output.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: indentation)) }
                let remaining = raw.count - index
                let first = UInt32(raw[index])
                let second = remaining > 1 ? UInt32(raw[index + 1]) : 0
                let third = remaining > 2 ? UInt32(raw[index + 2]) : 0
                let group = first << 16 | second << 8 | third
                output.append(alphabet[Int(group >> 18 & 0x3F)])
                output.append(alphabet[Int(group >> 12 & 0x3F)])
                output.append(remaining > 1 ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
                output.append(remaining > 2 ? alphabet[Int(group & 0x3F)] : UInt8(ascii: "="))
                index += 3
                column += 4
                if column >= lineLength || index >= raw.count {
                    output.append(UInt8(ascii: "\n"))
                    column = 0
                }
            }
        }
    }
}
