import Foundation

/// Scripts/silent-server-proxy.py between the stores and the test server, on 127.0.0.1 only:
/// ``silence()`` makes the server look frozen (connections stay open, nothing is answered),
/// ``speak()`` brings it back; ``cut()`` makes it unreachable (every connection is closed at once
/// and new ones are refused, as after a restart or a network gone away), ``heal()`` ends that.
///
/// ```swift
/// let proxy = try SilentServerProxy(to: "postgresql://postgres@127.0.0.1:5432/postgres")
/// let store = try PreferenceStore(.postgres(url: proxy.url, namespace: "n"))
/// try proxy.silence()
/// try proxy.speak()
/// try proxy.cut()
/// try proxy.heal()
/// ```
public final class SilentServerProxy: @unchecked Sendable {  // one test or tool drives it, from one task
    /// The test server's URL with the proxy's port.
    ///
    /// ```swift
    /// proxy.url  //=> "postgresql://postgres@127.0.0.1:41234/postgres"
    /// ```
    public let url: String
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let answers: LineReader

    /// Scripts/silent-server-proxy.py of this checkout.
    ///
    /// ```swift
    /// SilentServerProxy.script  //=> "/work/main/Scripts/silent-server-proxy.py"
    /// ```
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Scripts/silent-server-proxy.py").path

    /// Starts a proxy to the server of `url` (`postgresql://user@host:port/database`). `script`
    /// is the proxy program; a test of this type passes a stand-in that speaks its protocol.
    ///
    /// ```swift
    /// let proxy = try SilentServerProxy(to: server.url)
    /// ```
    public init(to url: String, script: String = SilentServerProxy.script) throws {
        guard let match = url.firstMatch(of: /^postgresql:\/\/([^@\/]+@)?([^:\/]+):(\d+)(\/.*)$/) else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "not a host:port URL: \(url)"])
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, String(match.2), String(match.3)]
        process.standardInput = input
        process.standardOutput = output
        answers = LineReader(output.fileHandleForReading)
        try process.run(killingAfter: Process.safetyNet)
        let line = try? answers.next()
        guard let port = line.flatMap({ Int($0) }) else {
            kill(process.processIdentifier, SIGKILL)  // SIGTERM: blocked in the test runner's children
            let said = line.map { "printed '\($0)' instead of its port" } ?? "ended before printing its port (see its stderr)"
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the proxy \(script) \(said)"])
        }
        self.url = "postgresql://\(match.1 ?? "")127.0.0.1:\(port)\(match.4)"
    }

    /// From now on nothing is relayed and new connections are never answered.
    ///
    /// ```swift
    /// try proxy.silence()
    /// ```
    public func silence() throws { try command("silence") }

    /// Relays again, the held data first.
    ///
    /// ```swift
    /// try proxy.speak()
    /// ```
    public func speak() throws { try command("speak") }

    /// Closes every relayed connection at once, both sides (the client's with a reset, so its next
    /// read or write fails at once), and from now on refuses each new connection as soon as it
    /// arrives: the server is unreachable, where ``silence()`` leaves it frozen. Returns once
    /// every relayed connection is closed.
    ///
    /// ```swift
    /// try proxy.cut()
    /// try PreferenceStore(.postgres(url: proxy.url, namespace: "n"))  // throws at once: the server closed the connection
    /// ```
    public func cut() throws { try command("cut") }

    /// Relays new connections again after ``cut()`` (the ones it closed stay closed).
    ///
    /// ```swift
    /// try proxy.heal()
    /// let store = try PreferenceStore(.postgres(url: proxy.url, namespace: "n"))  // connects
    /// ```
    public func heal() throws { try command("heal") }

    /// Closes the proxy's input, which ends it; kills it when it is still there after 10 s (a child
    /// started meanwhile may hold a copy of that input open).
    ///
    /// ```swift
    /// proxy.stop()
    /// ```
    public func stop() {
        try? input.fileHandleForWriting.close()
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Sends `line` and waits until the proxy answers it with the same line: then it is in force.
    private func command(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        let answer = try answers.next()
        guard answer == line else {
            let message = "the proxy answered '\(answer)' to '\(line)'"
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: message])
        }
    }
}

/// The whole lines of the proxy's output, one at a time. A pipe read returns what has arrived,
/// part of a line or more than one: a port read as "40793" once left its "\n" to be taken as
/// the answer to the next command, which then returned before the proxy had acted on it.
private final class LineReader {
    private let handle: FileHandle
    /// What was read that is not yet a whole line.
    private var received = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    /// The next line, without its newline; throws once the output ended first.
    func next() throws -> String {
        while true {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                defer { received.removeSubrange(...newline) }
                return String(decoding: received[..<newline], as: UTF8.self)
            }
            let data = handle.availableData
            if data.isEmpty { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the proxy ended"]) }
            received.append(data)
        }
    }
}

/// A TCP port on 127.0.0.1 where nothing listens (bound, then released): a stopped server's address.
///
/// ```swift
/// let url = "postgresql://postgres@127.0.0.1:\(closedLocalPort())/postgres"  // connection refused
/// ```
public func closedLocalPort() -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(descriptor, pointer, length)
            return getsockname(descriptor, pointer, &length)
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
