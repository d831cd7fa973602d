import Foundation

/// The command line as the kernel handed it over: bytes, checked to be UTF-8 before anything
/// reads them, because `CommandLine.arguments` turns an invalid byte into U+FFFD and
/// `stored delete prefs.plist $'k\xff'` would then delete another key, `k\u{FFFD}`.
///
/// ```swift
/// try RawArguments.strings([Array("read".utf8), [0x6B, 0xFF]])
/// //=> throws: Argument 2, 'k\xFF', is not valid UTF-8 (byte 0xFF at offset 1) ...
/// ```
enum RawArguments {
    /// The arguments after the program name, from the process's `argv`.
    static func current() throws(CLIError) -> [String] {
        let raw = (1..<Int(CommandLine.argc)).map { index in
            CommandLine.unsafeArgv[index].map { Array(UnsafeBufferPointer(start: $0, count: strlen($0))) } ?? []
        }
        return try strings(raw.map { $0.map { UInt8(bitPattern: $0) } })
    }

    /// Each argument as a `String`, or an error naming the first one that is not valid UTF-8.
    static func strings(_ arguments: [[UInt8]]) throws(CLIError) -> [String] {
        var strings: [String] = []
        for (index, bytes) in arguments.enumerated() {
            if let invalid = firstInvalidByte(in: bytes) {
                throw CLIError(
                    .invalidInput,
                    "Argument \(index + 1), '\(escaped(bytes))', is not valid UTF-8 (byte 0x\(hex(bytes[invalid])) at offset \(invalid)). "
                        + "Keys, values and paths are UTF-8 text; a replacement character would name another key. Nothing was changed."
                )
            }
            strings.append(String(decoding: bytes, as: UTF8.self))
        }
        return strings
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence.
    static func firstInvalidByte(in bytes: [UInt8]) -> Int? {
        var offset = 0
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }

    /// The text with every byte of an invalid sequence shown as `\xNN`, the rest as it is.
    static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                text += String(decoding: encoded, as: UTF8.self)
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<(offset + length)] { text += "\\x" + hex(byte) }
                offset += length
            case .emptyInput:
                return text
            }
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }
}
