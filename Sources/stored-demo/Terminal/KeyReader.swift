/// A key the interactive demo understands; everything else is `.unknown` and ignored.
///
/// ```swift
/// var reader = KeyReader()
/// reader.feed(Array("\u{1B}[A q".utf8))  //=> [.up, .space, .character("q")]
/// ```
enum Key: Equatable, Sendable {
    case up, down, left, right
    case shiftUp, shiftDown, altUp, altDown
    case enter, space, backspace, escape, tab
    /// Ctrl plus a letter, as the letter (`"c"` for Ctrl-C).
    case control(Character)
    case character(Character)
    case unknown
}

/// Turns the bytes a terminal sends into keys: escape sequences (CSI and SS3), control bytes and
/// UTF-8 characters. A sequence cut at the end of a read waits for the next read, except a lone
/// ESC, which is the Escape key (a terminal sends a whole sequence in one write).
struct KeyReader {
    private var pending: [UInt8] = []

    /// Adds bytes read from the terminal and returns the complete keys among them, in order.
    mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            guard let (key, length) = Self.key(at: index, in: pending) else { break }
            keys.append(key)
            index += length
        }
        pending.removeFirst(index)
        return keys
    }

    /// The key starting at `start` and how many bytes it takes, or `nil` when more bytes are needed.
    private static func key(at start: Int, in bytes: [UInt8]) -> (Key, Int)? {
        let byte = bytes[start]
        switch byte {
        case 0x1B: return escapeSequence(at: start, in: bytes)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x20: return (.space, 1)
        case 0x01...0x1A: return (.control(Character(Unicode.Scalar(byte + 0x60))), 1)
        case 0x21...0x7E: return (.character(Character(Unicode.Scalar(byte))), 1)
        default: return utf8Character(at: start, in: bytes)
        }
    }

    private static func escapeSequence(at start: Int, in bytes: [UInt8]) -> (Key, Int)? {
        guard start + 1 < bytes.count else { return (.escape, 1) }
        let introducer = bytes[start + 1]
        guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
            return (.escape, 1)  // Escape, then a key read on its own
        }
        // CSI: parameters and intermediates (0x20...0x3F), then one final byte (0x40...0x7E).
        var end = start + 2
        while end < bytes.count, (0x20...0x3F).contains(bytes[end]) { end += 1 }
        guard end < bytes.count else { return nil }
        let parameters = String(decoding: bytes[(start + 2)..<end], as: UTF8.self)
        let length = end - start + 1
        switch (bytes[end], parameters) {
        case (UInt8(ascii: "A"), ""): return (.up, length)
        case (UInt8(ascii: "B"), ""): return (.down, length)
        case (UInt8(ascii: "C"), ""): return (.right, length)
        case (UInt8(ascii: "D"), ""): return (.left, length)
        case (UInt8(ascii: "A"), "1;2"): return (.shiftUp, length)
        case (UInt8(ascii: "B"), "1;2"): return (.shiftDown, length)
        case (UInt8(ascii: "A"), "1;3"): return (.altUp, length)
        case (UInt8(ascii: "B"), "1;3"): return (.altDown, length)
        case (UInt8(ascii: "M"), "") where introducer == UInt8(ascii: "O"): return (.enter, length)  // keypad Enter
        default: return (.unknown, length)
        }
    }

    private static func utf8Character(at start: Int, in bytes: [UInt8]) -> (Key, Int)? {
        let lead = bytes[start]
        let length =
            switch lead {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 0
            }
        guard length > 0 else { return (.unknown, 1) }
        guard start + length <= bytes.count else { return nil }
        let slice = bytes[start..<(start + length)]
        guard slice.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }), let text = String(validating: slice, as: UTF8.self),
            let character = text.first, text.count == 1
        else { return (.unknown, length) }
        return (.character(character), length)
    }
}
