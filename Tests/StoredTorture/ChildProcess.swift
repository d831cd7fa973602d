import Foundation
import StoredKitTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A copy of this executable running one hidden `--child` command, its stdout read line by line.
///
/// Spawned with `posix_spawn` so the parent controls exactly which descriptors the child gets:
/// only its stdout pipe, so the pipe reaches end-of-file the moment the child dies.
final class ChildProcess {
    /// How a child ended.
    enum Ending: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    let processIdentifier: pid_t
    private(set) var lines: [String] = []
    private var partialLine: [UInt8] = []
    private var readDescriptor: Int32
    private var ending: Ending?

    /// This executable, so that children run the same code as the parent.
    static let executablePath: String = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// Starts `stored-torture --child <arguments>` with `environment` added to this process's.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw TortureError("pipe failed: errno \(errno)") }
        // Close-on-exec, so that no other child inherits this pipe and keeps it open after this one died.
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptors[1], 1)
        // Nothing else: a descriptor of this process without close-on-exec (Foundation's socket that
        // tells its parent this process ended, another child's pipe) would outlive us in the child.
        SpawnActions.closeEverythingElse(&actions)

        let argv = ([Self.executablePath, "--child"] + arguments).map { strdup($0) } + [nil]
        var merged = ProcessInfo.processInfo.environment
        // A crashing child is counted, not debugged here: skip the backtracer's seconds of work.
        merged["SWIFT_BACKTRACE"] = "enable=no"
        merged.merge(environment) { $1 }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        // Under the lock of the running children, so that none starts after the tool began to end.
        var pid: pid_t = 0
        let code = Self.running.withLock { running in
            guard !running.ending else { return ECANCELED }
            let code = posix_spawn(&pid, Self.executablePath, &actions, nil, argv, envp)
            if code == 0 { running.children.insert(pid) }
            return code
        }
        close(descriptors[1])
        guard code == 0 else {
            close(descriptors[0])
            throw TortureError("could not start \(Self.executablePath): errno \(code)")
        }
        processIdentifier = pid
        readDescriptor = descriptors[0]
    }

    /// The children not reaped yet, and whether the tool is ending (no child may start then).
    private static let running = Mutex<(children: Set<pid_t>, ending: Bool)>(([], false))

    /// At exit (``endWithTheTool()``): kills every child not reaped yet and waits for it; no
    /// child starts after.
    static func killAllRunning() {
        let left = running.withLock { running in
            defer { running = ([], true) }
            return running.children
        }
        for pid in left { kill(pid, SIGKILL) }
        for pid in left {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
    }

    deinit {
        if ending == nil {
            kill(processIdentifier, SIGKILL)
            _ = wait()
        }
        if readDescriptor >= 0 { close(readDescriptor) }
    }

    /// Reads lines until `predicate` accepts one (true), the pipe ends or `timeout` passes (false).
    @discardableResult
    func readLines(timeout: Duration, until predicate: (String) -> Bool = { _ in false }) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var checked = 0
        while true {
            while checked < lines.count {
                if predicate(lines[checked]) { return true }
                checked += 1
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, readDescriptor >= 0 else { return false }
            let milliseconds = Int32(
                clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            var poller = pollfd(fd: readDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, max(milliseconds, 1))
            if ready < 0, errno == EINTR { continue }
            if ready > 0 { readAvailable() }
        }
    }

    /// Whether the child's stdout reached its end (read so far): normally, the child ended.
    var outputEnded: Bool { readDescriptor < 0 }

    /// Reads until the child closes its stdout (normally: it ended).
    func readToEnd(timeout: Duration = .seconds(600)) {
        _ = readLines(timeout: timeout)
    }

    /// SIGKILL: no chance to flush, clean up or finish a write. Returns once the child is gone.
    func killHard() {
        kill(processIdentifier, SIGKILL)
        _ = wait()
        readToEnd(timeout: .seconds(10))
    }

    /// Waits for the child to end.
    func wait() -> Ending {
        if let ending { return ending }
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) < 0, errno == EINTR {}
        let low = status & 0x7f
        let ended: Ending = low == 0 ? .exited((status >> 8) & 0xff) : .signaled(low)
        ending = ended
        _ = Self.running.withLock { $0.children.remove(processIdentifier) }
        return ended
    }

    /// Reads everything, then waits: the usual end of a child that runs to completion.
    func finish(timeout: Duration = .seconds(600)) -> Ending {
        readToEnd(timeout: timeout)
        if readDescriptor >= 0, ending == nil {
            // Still running past the timeout: a hang counts as a crash.
            kill(processIdentifier, SIGKILL)
        }
        return wait()
    }

    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = read(readDescriptor, &chunk, chunk.count)
        if count < 0, errno == EINTR || errno == EAGAIN { return }
        guard count > 0 else {
            close(readDescriptor)
            readDescriptor = -1
            return
        }
        for byte in chunk[0..<count] {
            if byte == UInt8(ascii: "\n") {
                lines.append(String(decoding: partialLine, as: UTF8.self))
                partialLine.removeAll(keepingCapacity: true)
            } else {
                partialLine.append(byte)
            }
        }
    }
}

/// A failure of the torture harness itself (not of StoredKit).
struct TortureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
