import Foundation

/// Another copy of this benchmark running one hidden `--child` job, so work that must happen in a
/// separate process (peak memory, several writers on one file, a cross-process observer) can be
/// measured. Parent and child talk in lines over the child's stdin and stdout.
///
/// ```swift
/// let child = try ChildProcess(["contention", "sqlite", path, "500"])
/// try child.expect("ready")
/// child.send("go")
/// let lines = try child.waitForExit()  //=> ["done 812345678"]
/// ```
final class ChildProcess {
    let arguments: [String]
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered = Data()

    /// Starts `stored-bench --child <arguments>`; its standard error goes to ours.
    init(_ arguments: [String]) throws {
        self.arguments = arguments
        process.executableURL = try Self.executableURL()
        process.arguments = ["--child"] + arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// The running binary itself, so parent and children are always the same build.
    static func executableURL() throws -> URL {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { throw BenchmarkError.unexpected("cannot read /proc/self/exe (errno \(errno))") }
        let path = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return URL(fileURLWithPath: path)
    }

    /// The next line the child printed; throws if it exited first.
    func readLine() throws -> String {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                buffered.removeSubrange(buffered.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                process.waitUntilExit()
                throw BenchmarkError.childFailed(
                    arguments: arguments, status: process.terminationStatus, output: "ended before a full line")
            }
            buffered.append(chunk)
        }
    }

    /// Reads one line and checks it is `expected`.
    func expect(_ expected: String) throws {
        let line = try readLine()
        guard line == expected else {
            throw BenchmarkError.childFailed(arguments: arguments, status: -1, output: "said '\(line)', expected '\(expected)'")
        }
    }

    /// Stops a child that is no longer wanted (after another child failed), with SIGTERM.
    func terminate() {
        if process.isRunning { process.terminate() }
    }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits for the child to end and returns the lines it printed that were not read yet.
    @discardableResult
    func waitForExit() throws -> [String] {
        try? input.fileHandleForWriting.close()  // the child may have stopped reading already
        var rest = buffered
        rest.append(output.fileHandleForReading.readDataToEndOfFile())
        buffered = Data()
        process.waitUntilExit()
        let lines = String(decoding: rest, as: UTF8.self).split(separator: "\n").map(String.init)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchmarkError.childFailed(
                arguments: arguments, status: process.terminationStatus, output: lines.joined(separator: " | "))
        }
        return lines
    }

    /// The value of the first `name value` line in `lines`.
    static func value(_ name: String, in lines: [String]) throws -> Double {
        for line in lines {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == name, let value = Double(parts[1]) { return value }
        }
        throw BenchmarkError.unexpected("child output has no '\(name)' line: \(lines)")
    }
}

/// Child-side helpers: what a `--child` job uses to talk to its parent.
enum ChildSide {
    /// Prints one line to the parent at once (stdout is a pipe, so it is block-buffered otherwise).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Blocks until the parent sends `go`, so every child starts its timed work together.
    static func waitForGo() throws {
        guard let line = Swift.readLine(), line == "go" else {
            throw BenchmarkError.unexpected("expected 'go' from the parent")
        }
    }

    /// This process's peak resident set size (`VmHWM` in /proc/self/status), in bytes.
    static func peakResidentBytes() throws -> UInt64 {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first
            if let kilobytes, let value = UInt64(kilobytes) { return value * 1024 }
        }
        throw BenchmarkError.unexpected("no VmHWM line in /proc/self/status")
    }
}
