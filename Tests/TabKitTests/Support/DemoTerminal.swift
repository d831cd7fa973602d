import Foundation
import Glibc
import StoredKitTestSupport

/// The built `stored-demo` running on a real pseudo-terminal (`openpty`): the test types on the
/// master side and reads the screen back, as a terminal emulator would.
///
/// ```swift
/// let demo = try DemoTerminal(arguments: ["--store", path])
/// try demo.type("jj ")
/// #expect(demo.waitForScreen { $0.contains("[ ] Climate") })
/// ```
final class DemoTerminal {
    private(set) var master: Int32
    let slave: Int32
    /// Where the demo's standard output goes: the same terminal, or a second one on request.
    private(set) var screenMaster: Int32
    private let screenSlave: Int32
    private(set) var processID: pid_t = 0
    /// Everything the demo wrote to its standard output so far.
    private(set) var output: [UInt8] = []
    /// What the demo wrote to the first terminal when its output goes to a second one.
    private(set) var inputSideOutput: [UInt8] = []
    /// The rows of the last complete frame (frames end with the synchronized-update end marker).
    private(set) var screen: [String] = []
    private var unparsed: [UInt8] = []
    private var exitStatus: Int32?

    static let frameEnd = Array("\u{1B}[?2026l".utf8)

    /// Opens a pseudo-terminal of `columns`×`rows` and starts the demo on it with `arguments`;
    /// with `screenOnSecondTerminal`, its standard output goes to a second pseudo-terminal.
    init(
        arguments: [String], columns: Int = 80, rows: Int = 24,
        environment: [String: String] = ["TERM": "xterm-256color", "LANG": "C.UTF-8"],
        screenOnSecondTerminal: Bool = false
    ) throws {
        (master, slave) = try Self.openTerminal(columns: columns, rows: rows)
        (screenMaster, screenSlave) =
            screenOnSecondTerminal ? try Self.openTerminal(columns: columns, rows: rows) : (master, slave)
        try spawn(try Self.demoExecutable().path, arguments: arguments, environment: environment)
    }

    private static func openTerminal(columns: Int, rows: Int) throws -> (master: Int32, slave: Int32) {
        var master: Int32 = -1
        var slave: Int32 = -1
        var window = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &window) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        return (master, slave)
    }

    deinit {
        if exitStatus == nil {
            kill(processID, SIGKILL)
            var status: Int32 = 0
            waitpid(processID, &status, 0)
        }
        if screenSlave != slave {
            if screenMaster >= 0 { close(screenMaster) }
            close(screenSlave)
        }
        if master >= 0 { close(master) }
        close(slave)
    }

    /// The terminal's modes as the demo's terminal sees them (read on the slave side).
    var modes: TerminalModes { TerminalModes(slave) }

    /// Types `text` (escape sequences included) into the terminal.
    func type(_ text: String) throws {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw POSIXError(.EIO) }
    }

    /// Closes the terminal's master side, as a terminal window closing does (the demo's reads fail).
    /// The screen's descriptor goes with it when the screen is on this terminal: a closed number
    /// is soon another test's terminal or pipe, and reading it would steal that test's bytes.
    func hangUp() {
        close(master)
        if screenMaster == master { screenMaster = -1 }
        master = -1
    }

    /// Closes the second terminal, the one the screen goes to: the demo's next frame fails to write.
    func hangUpScreen() {
        guard screenSlave != slave else { return }
        close(screenMaster)
        screenMaster = -1
    }

    /// Sends `signal` to the demo.
    func send(signal: Int32) {
        kill(processID, signal)
    }

    /// Changes the window size and tells the demo, as a terminal emulator does.
    func resize(columns: Int, rows: Int) {
        var window = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &window)
        kill(processID, SIGWINCH)
    }

    /// Reads the demo's output until the screen satisfies `condition` or `timeout` passes.
    @discardableResult
    func waitForScreen(timeout: Duration = .seconds(60), _ condition: ([String]) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition(screen) {
            guard ContinuousClock.now < deadline, readOnce() else { return condition(screen) }
        }
        return true
    }

    /// Whether some row of the current screen contains `text`.
    func shows(_ text: String) -> Bool {
        screen.contains { $0.contains(text) }
    }

    /// The index of the first row containing `text`.
    func row(of text: String) -> Int? {
        screen.firstIndex { $0.contains(text) }
    }

    /// Waits for the demo to end (reading what it still writes) and returns its exit status,
    /// 128 + n when a signal n ended it; `nil` if it is still running at the deadline.
    func waitForExit(timeout: Duration = .seconds(60)) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while exitStatus == nil && ContinuousClock.now < deadline {
            var status: Int32 = 0
            if waitpid(processID, &status, WNOHANG) == processID {
                let signal = status & 0x7F
                exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            } else {
                _ = readOnce()
            }
        }
        while readAvailable() {}
        return exitStatus
    }

    /// One poll of up to 50 ms and one read; false once the demo's side is closed for good.
    private func readOnce() -> Bool {
        if screenSlave != slave, let bytes = Self.read(master, waitingMilliseconds: 0) { inputSideOutput += bytes }
        guard screenMaster >= 0 else {
            usleep(10_000)  // nothing to read from a closed terminal; wait for the demo to end
            return true
        }
        guard let bytes = Self.read(screenMaster, waitingMilliseconds: 50) else { return true }
        append(bytes)
        return !bytes.isEmpty
    }

    private func readAvailable() -> Bool {
        if screenSlave != slave, let bytes = Self.read(master, waitingMilliseconds: 0) { inputSideOutput += bytes }
        guard let bytes = Self.read(screenMaster, waitingMilliseconds: 0), !bytes.isEmpty else { return false }
        append(bytes)
        return true
    }

    /// What `descriptor` has within `milliseconds`: `nil` when nothing came, empty when it is closed.
    private static func read(_ descriptor: Int32, waitingMilliseconds milliseconds: Int32) -> [UInt8]? {
        guard descriptor >= 0 else { return nil }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, milliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        return count > 0 ? Array(buffer.prefix(count)) : []
    }

    private func append(_ bytes: [UInt8]) {
        output += bytes
        unparsed += bytes
        while let end = unparsed.firstRange(of: Self.frameEnd) {
            screen = Self.rows(of: Array(unparsed[..<end.lowerBound]))
            unparsed.removeSubrange(..<end.upperBound)
        }
    }

    /// The text of one frame: a cursor move to column 1 of a row starts that row; other escape
    /// sequences are dropped.
    static func rows(of frame: [UInt8]) -> [String] {
        var rows: [[UInt8]] = []
        var index = 0
        while index < frame.count {
            if frame[index] == 0x1B, index + 1 < frame.count, frame[index + 1] == UInt8(ascii: "[") {
                var end = index + 2
                while end < frame.count, !(0x40...0x7E).contains(frame[end]) { end += 1 }
                let parameters = String(decoding: frame[(index + 2)..<min(end, frame.count)], as: UTF8.self)
                if end < frame.count, frame[end] == UInt8(ascii: "H"), parameters.hasSuffix(";1") { rows.append([]) }
                index = end + 1
            } else {
                if !rows.isEmpty, frame[index] != 0x1B { rows[rows.count - 1].append(frame[index]) }
                index += 1
            }
        }
        return rows.map { String(decoding: $0, as: UTF8.self) }
    }

    private func spawn(_ path: String, arguments: [String], environment: [String: String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, slave, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, screenSlave, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, slave, STDERR_FILENO)
        // Nothing else of the test process: a demo holding another test's pipe or Foundation's
        // child-exit socket would keep that test waiting for as long as the demo runs.
        SpawnActions.closeEverythingElse(&actions)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let result = posix_spawn(&processID, path, &actions, nil, argv, envp)
        guard result == 0 else { throw POSIXError(.init(rawValue: result) ?? .EIO) }
    }

    /// The `stored-demo` binary built next to the test bundle.
    static func demoExecutable() throws -> URL { try BuiltExecutable.url(named: "stored-demo") }
}

/// A terminal's modes, comparable: flags and control characters as `tcgetattr` reports them.
struct TerminalModes: Equatable, CustomStringConvertible {
    let input, output, control, local: UInt32
    let characters: [UInt8]

    init(_ descriptor: Int32) {
        var modes = termios()
        tcgetattr(descriptor, &modes)
        input = modes.c_iflag
        output = modes.c_oflag
        control = modes.c_cflag
        local = modes.c_lflag
        characters = withUnsafeBytes(of: modes.c_cc) { Array($0) }
    }

    var description: String {
        "iflag \(input) oflag \(output) cflag \(control) lflag \(local)"
    }
}
