import Glibc

/// A pseudo-terminal with a program running on its slave side, read and typed into from the
/// master side, as a terminal emulator would: what `measure-latency` drives the demo through.
///
/// ```swift
/// let terminal = try PseudoTerminal(size: TerminalSize(columns: 80, rows: 24))
/// try terminal.spawn("/proc/self/exe", arguments: ["--store", path], environment: ["TERM=xterm"])
/// try terminal.send(Array("q".utf8))
/// ```
final class PseudoTerminal {
    let master: Int32
    let slave: Int32
    private(set) var processID: pid_t = 0

    init(size: TerminalSize) throws(TerminalError) {
        var master: Int32 = -1
        var slave: Int32 = -1
        var window = winsize(ws_row: UInt16(size.rows), ws_col: UInt16(size.columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &window) == 0 else { throw .system("openpty", errno) }
        self.master = master
        self.slave = slave
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
    }

    deinit {
        close(master)
        close(slave)
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: CloseFrom.self)
    }

    /// Starts `path` with the slave as its standard input, output and error.
    func spawn(_ path: String, arguments: [String], environment: [String]) throws(TerminalError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for target in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            posix_spawn_file_actions_adddup2(&actions, slave, target)
        }
        // Only the terminal: an inherited pipe or socket would stay open as long as the child runs.
        // (glibc's addclosefrom_np; Swift's Glibc module leaves `_GNU_SOURCE` functions out.)
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, STDERR_FILENO + 1) }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var processID: pid_t = 0
        let result = posix_spawn(&processID, path, &actions, nil, argv, envp)
        guard result == 0 else { throw .system("posix_spawn \(path)", result) }
        self.processID = processID
    }

    /// Types `bytes` into the terminal.
    func send(_ bytes: [UInt8]) throws(TerminalError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .system("write to the pseudo-terminal", errno)
            }
            offset += written
        }
    }

    /// What the program wrote, waiting up to `timeoutMilliseconds` for the first byte; empty on timeout.
    func read(timeoutMilliseconds: Int32) throws(TerminalError) -> [UInt8] {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        if ready < 0 && errno != EINTR { throw .system("poll", errno) }
        guard ready > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return [] }
            throw .system("read from the pseudo-terminal", errno)  // EIO: the program closed its side
        }
        return Array(buffer.prefix(count))
    }

    /// Waits for the program to end and returns its exit status (128 + n when killed by signal n).
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(processID, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
