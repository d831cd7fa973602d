/// The text of frames written by ``TerminalScreen``, as a reader of the terminal sees it: what
/// `measure-latency` checks to know that a redraw happened.
///
/// ```swift
/// var screen = ScreenText()
/// screen.append(bytesReadFromTheTerminal)
/// screen.shows("[ ] Climate")  //=> true once a frame with a hidden Climate arrived
/// ```
struct ScreenText {
    private var pending: [UInt8] = []
    /// The rows of the last complete frame.
    private var lastFrame: [String]?

    /// Adds bytes read from the terminal; every complete frame among them replaces ``lastFrame``.
    mutating func append(_ bytes: [UInt8]) {
        pending += bytes
        let end = Array(TerminalScreen.frameEnd.utf8)
        while let range = pending.firstRange(of: end) {
            lastFrame = Self.rows(of: Array(pending[..<range.lowerBound]))
            pending.removeSubrange(..<range.upperBound)
        }
    }

    /// Whether the last complete frame has `text` on one of its rows.
    func shows(_ text: String) -> Bool {
        lastFrame?.contains { $0.contains(text) } ?? false
    }

    /// Rows of text: a cursor move to row `r` (`ESC [ r ; c H`) starts row r, other escape
    /// sequences are dropped.
    static func rows(of frame: [UInt8]) -> [String] {
        var rows: [String] = []
        var row: [UInt8] = []
        var index = 0
        func finishRow() {
            rows.append(String(decoding: row, as: UTF8.self))
            row = []
        }
        while index < frame.count {
            guard frame[index] == 0x1B, index + 1 < frame.count, frame[index + 1] == UInt8(ascii: "[") else {
                if frame[index] != 0x1B { row.append(frame[index]) }
                index += 1
                continue
            }
            var end = index + 2
            while end < frame.count, !(0x40...0x7E).contains(frame[end]) { end += 1 }
            if end < frame.count, frame[end] == UInt8(ascii: "H") {
                finishRow()
            }
            index = end + 1
        }
        finishRow()
        return rows.filter { !$0.isEmpty }
    }
}
