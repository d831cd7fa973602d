/// How many terminal columns text takes as this style draws it: East Asian wide characters and
/// most emoji take two in a UTF-8 locale; elsewhere every non-ASCII character is drawn as `?`.
///
/// ```swift
/// ScreenStyle(color: true, unicode: true).columns(of: "日本")   //=> 4
/// ScreenStyle(color: true, unicode: false).columns(of: "日本")  //=> 2
/// ```
extension ScreenStyle {
    /// The wide ranges of Unicode's East Asian Width property (W and F), in short.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
        0x1F900...0x1F9FF, 0x20000...0x3FFFD,
    ]

    /// The columns one character takes.
    func columns(of character: Character) -> Int {
        guard unicode, !character.isASCII, let scalar = character.unicodeScalars.first else { return 1 }
        return Self.wideRanges.contains { $0.contains(scalar.value) } ? 2 : 1
    }

    /// The columns `text` takes.
    func columns(of text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// The longest start of `text` that fits in `width` columns.
    func prefix(of text: String, columns width: Int) -> String {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            used += columns(of: text[index])
            if used > width { break }
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    /// `text` cut or padded with spaces to exactly `width` columns.
    func fit(_ text: String, columns width: Int) -> String {
        let cut = prefix(of: text, columns: width)
        return cut + String(repeating: " ", count: max(width - columns(of: cut), 0))
    }
}
