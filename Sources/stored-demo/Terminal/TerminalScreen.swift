import Glibc
import StoredKit

/// The full screen of a terminal: enters the alternate screen, draws whole frames with one
/// `write` each (so a frame never shows half drawn), and leaves the screen as it found it.
///
/// ```swift
/// let screen = TerminalScreen(fileDescriptor: STDOUT_FILENO, style: .fromEnvironment())
/// try screen.enter()
/// try screen.draw(Frame(lines: [[Span("Hello", .title)]]), size: TerminalSize(columns: 80, rows: 24))
/// screen.leave()
/// ```
final class TerminalScreen {
    /// Each frame is wrapped in a synchronized update (DEC mode 2026), so terminals that know it
    /// show it at once; the end marker also lets a reader tell where a frame ends.
    static let frameStart = "\u{1B}[?2026h"
    static let frameEnd = "\u{1B}[?2026l"

    /// Where frames go.
    static let standardOutput = STDOUT_FILENO

    let fileDescriptor: Int32
    let style: ScreenStyle
    private var isEntered = false

    init(fileDescriptor: Int32, style: ScreenStyle) {
        self.fileDescriptor = fileDescriptor
        self.style = style
    }

    /// Switches to the alternate screen and hides the cursor.
    func enter() throws(TerminalError) {
        try write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
        isEntered = true
    }

    /// Back to the normal screen, cursor shown, attributes reset; safe to call more than once.
    func leave() {
        guard isEntered else { return }
        isEntered = false
        try? write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
    }

    /// Draws `frame` over the whole screen: every row is rewritten and cleared to its end, so
    /// nothing of the previous frame stays and nothing is cleared first (no flicker).
    func draw(_ frame: Frame, size: TerminalSize) throws(TerminalError) {
        var output = Self.frameStart
        for row in 0..<size.rows {
            output += "\u{1B}[\(row + 1);1H"
            if row < frame.lines.count { output += encode(frame.lines[row], width: size.columns) }
            output += "\u{1B}[0m\u{1B}[K"
        }
        if let cursor = frame.cursor {
            output += "\u{1B}[\(cursor.row + 1);\(cursor.column + 1)H\u{1B}[?25h"
        } else {
            output += "\u{1B}[?25l"
        }
        output += Self.frameEnd
        try write(output)
    }

    private func encode(_ line: [Span], width: Int) -> String {
        var output = ""
        var used = 0
        for span in line where used < width {
            let text = style.prefix(of: String(span.text.map(printable)), columns: width - used)
            used += style.columns(of: text)
            output += style.escape(for: span.attribute) + text
        }
        return output
    }

    /// The character itself, or `?` for one the terminal must not get: a control character
    /// (text from the store could otherwise clear the screen or move the cursor), a bidirectional
    /// override (it would reorder the row) or, outside a UTF-8 locale, anything not ASCII.
    private func printable(_ character: Character) -> Character {
        let isUnsafe = character.unicodeScalars.contains(where: \.isUnsafeOnTerminal)
        return isUnsafe || !(style.unicode || character.isASCII) ? "?" : character
    }

    /// `text` for a terminal outside a screen (stderr, `watch`'s output): every scalar it must
    /// not get (``Unicode/Scalar/isUnsafeOnTerminal``) but line breaks is `?`, as on the screens.
    ///
    /// ```swift
    /// TerminalScreen.printableLines("a\u{1B}[2Jb\nc\u{202E}d")  //=> "a?[2Jb\nc?d"
    /// ```
    static func printableLines(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0 != "\n" && $0.isUnsafeOnTerminal ? "?" : $0 }))
    }

    /// Writes all of `text`; a frame normally goes out in this one `write` call.
    private func write(_ text: String) throws(TerminalError) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fileDescriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .system("write to the terminal", errno)
            }
            offset += written
        }
    }
}

/// One screen's worth of text: rows of styled spans, and where the cursor shows (if at all).
struct Frame: Equatable {
    var lines: [[Span]]
    var cursor: (row: Int, column: Int)?

    init(lines: [[Span]], cursor: (row: Int, column: Int)? = nil) {
        self.lines = lines
        self.cursor = cursor
    }

    static func == (lhs: Frame, rhs: Frame) -> Bool {
        lhs.lines == rhs.lines && lhs.cursor?.row == rhs.cursor?.row && lhs.cursor?.column == rhs.cursor?.column
    }
}

/// A run of text drawn with one attribute.
///
/// ```swift
/// Span("Kitchen", .selected)
/// ```
struct Span: Equatable {
    var text: String
    var attribute: Attribute

    init(_ text: String, _ attribute: Attribute = .plain) {
        self.text = text
        self.attribute = attribute
    }

    /// What a span means; ``ScreenStyle`` decides how that looks.
    enum Attribute: Equatable {
        case plain, title, heading, selected, dimmed, notice, warning, key
    }
}
