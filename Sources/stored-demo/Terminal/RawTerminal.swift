import Glibc

/// A terminal put in raw mode (no echo, no line editing, no signals from keys) that gives back
/// exactly the modes it found, however the program ends.
///
/// ```swift
/// let terminal = try RawTerminal(fileDescriptor: STDIN_FILENO)
/// try terminal.enterRawMode()
/// defer { terminal.restore() }
/// ```
final class RawTerminal {
    /// Where keys come from.
    static let standardInput = STDIN_FILENO

    let fileDescriptor: Int32
    private let original: termios
    private var isRaw = false

    /// Reads the current modes of the terminal on `fileDescriptor`, to restore them later.
    init(fileDescriptor: Int32) throws(TerminalError) {
        var modes = termios()
        guard tcgetattr(fileDescriptor, &modes) == 0 else { throw .system("tcgetattr", errno) }
        self.fileDescriptor = fileDescriptor
        original = modes
    }

    /// Whether both standard input and standard output are terminals a full screen can be drawn on.
    ///
    /// ```swift
    /// RawTerminal.standardStreamsAreInteractive  //=> false   // under a pipe
    /// ```
    static var standardStreamsAreInteractive: Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    }

    /// Turns off echo, canonical input, signal keys, flow control and output processing: each key
    /// press arrives as soon as it is typed, Ctrl-C included, and the program draws every byte itself.
    func enterRawMode() throws(TerminalError) {
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { controlCharacters in
            controlCharacters[Int(VMIN)] = 1
            controlCharacters[Int(VTIME)] = 0
        }
        guard tcsetattr(fileDescriptor, TCSAFLUSH, &raw) == 0 else { throw .system("tcsetattr", errno) }
        isRaw = true
    }

    /// Puts the modes back as they were; safe to call more than once.
    func restore() {
        guard isRaw else { return }
        var modes = original
        // TCSADRAIN: the last frame and the screen-leaving sequence reach the terminal first.
        while tcsetattr(fileDescriptor, TCSADRAIN, &modes) != 0 && errno == EINTR {}
        isRaw = false
    }

    /// The terminal's size in columns and rows, or 80×24 when the terminal does not say.
    var size: TerminalSize {
        var window = winsize()
        guard ioctl(fileDescriptor, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return TerminalSize(columns: 80, rows: 24)
        }
        return TerminalSize(columns: Int(window.ws_col), rows: Int(window.ws_row))
    }
}

/// A terminal's size in character cells.
///
/// ```swift
/// TerminalSize(columns: 80, rows: 24).isAtLeast(TerminalSize(columns: 80, rows: 24))  //=> true
/// ```
struct TerminalSize: Equatable, Sendable {
    var columns: Int
    var rows: Int

    /// Whether this size is as wide and as tall as `minimum`.
    func isAtLeast(_ minimum: TerminalSize) -> Bool {
        columns >= minimum.columns && rows >= minimum.rows
    }
}

/// Why the terminal layer gave up: a system call failed.
///
/// ```swift
/// TerminalError.system("tcgetattr", ENOTTY).description  //=> tcgetattr failed: Inappropriate ioctl for device
/// ```
enum TerminalError: Error, CustomStringConvertible {
    case system(String, Int32)

    var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
