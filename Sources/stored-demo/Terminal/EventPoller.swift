import Dispatch
import Glibc

/// Waits on the terminal, a wake-up pipe (store changes from other threads) and a signal pipe at
/// once, so one loop reacts to keys, other processes' writes and signals without threads racing
/// over the screen.
///
/// ```swift
/// let poller = try EventPoller(input: STDIN_FILENO)
/// let waker = poller.waker
/// waker.wake()                       // from any thread
/// let events = try poller.wait()     //=> Events(input: [], woken: true, ...)
/// ```
final class EventPoller {
    /// What happened since the last wait.
    struct Events {
        var input: [UInt8] = []
        var inputEnded = false
        var woken = false
        /// The window changed size (SIGWINCH).
        var resized = false
        /// SIGINT, SIGTERM, SIGHUP or SIGQUIT arrived: the program should restore the terminal and end.
        var termination: Int32?
    }

    /// The signals that end the program, and the one that reports a new window size.
    static let terminationSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    static let resizeSignal = SIGWINCH
    /// The signal a closed terminal stands for.
    static let hangUpSignal = SIGHUP

    let input: Int32
    private let wakePipe: (read: Int32, write: Int32)
    private let signalPipe: (read: Int32, write: Int32)
    private let sources: [any DispatchSourceSignal]

    /// Starts catching the termination and resize signals: each is ignored at the process level
    /// and reported through a pipe instead, so the loop restores the terminal itself (a signal
    /// handler could not do that safely).
    init(input: Int32) throws(TerminalError) {
        let signals = Self.terminationSignals + [Self.resizeSignal]
        self.input = input
        wakePipe = try Self.makePipe()
        signalPipe = try Self.makePipe()
        let writeEnd = signalPipe.write
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                var byte = UInt8(truncatingIfNeeded: number)
                _ = Glibc.write(writeEnd, &byte, 1)
            }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
        for descriptor in [wakePipe.read, wakePipe.write, signalPipe.read, signalPipe.write] { close(descriptor) }
    }

    /// What another thread calls to make the next (or current) ``wait()`` return.
    var waker: Waker { Waker(descriptor: wakePipe.write) }

    /// Wakes an ``EventPoller`` from any thread.
    struct Waker: Sendable {
        let descriptor: Int32

        func wake() {
            var byte: UInt8 = 1
            _ = Glibc.write(descriptor, &byte, 1)  // a full pipe already means "woken"
        }
    }

    /// Blocks until a key, a wake-up or a signal arrives, and returns all that did.
    func wait() throws(TerminalError) -> Events {
        var descriptors = [input, wakePipe.read, signalPipe.read].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while poll(&descriptors, nfds_t(descriptors.count), -1) < 0 {
            guard errno == EINTR else { throw .system("poll", errno) }
        }
        var events = Events()
        if descriptors[0].revents != 0 {
            let bytes = try Self.readAvailable(input)
            events.input = bytes ?? []
            events.inputEnded = bytes == nil
        }
        if descriptors[1].revents != 0 {
            _ = try Self.readAvailable(wakePipe.read)  // how many wake-ups does not matter
            events.woken = true
        }
        if descriptors[2].revents != 0 {
            let signals = (try Self.readAvailable(signalPipe.read) ?? []).map { Int32($0) }
            events.resized = signals.contains(Self.resizeSignal)
            events.termination = signals.first { Self.terminationSignals.contains($0) }
        }
        return events
    }

    /// One read of what is there: empty when nothing is after all (the pipes do not block), `nil`
    /// at the end of the input or when the terminal hung up.
    private static func readAvailable(_ descriptor: Int32) throws(TerminalError) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { return Array(buffer.prefix(count)) }
            if count == 0 || errno == EIO { return nil }
            if errno == EINTR { continue }
            if errno == EAGAIN { return [] }
            throw .system("read", errno)
        }
    }

    private static func makePipe() throws(TerminalError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .system("pipe", errno) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)  // not inherited by processes the demo starts
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        return (ends[0], ends[1])
    }
}
