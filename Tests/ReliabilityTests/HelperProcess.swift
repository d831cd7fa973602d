import Foundation
import StoredKitTestSupport
import Synchronization

/// A running `stored-test-helper` process whose stdout is collected line by line.
final class HelperProcess: Sendable {
    private let process: Process
    private let output = LineBuffer()

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = try BuiltExecutable.url(named: "stored-test-helper")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        pipe.fileHandleForReading.readabilityHandler = { [output] handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                output.finish()
            } else {
                output.append(data)
            }
        }
        try process.run(killingAfter: Process.safetyNet)
        // Our copy of the pipe's write end would keep it open after the child exits: no EOF.
        try pipe.fileHandleForWriting.close()
    }

    var lines: [String] { output.lines }

    var processIdentifier: Int32 { process.processIdentifier }

    var isRunning: Bool { process.isRunning }

    /// Waits until a line satisfying `predicate` arrived; returns whether it did in time.
    func waitForLine(timeout: Duration = .seconds(30), _ predicate: (String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if lines.contains(where: predicate) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return lines.contains(where: predicate)
    }

    /// Waits for the process to end; returns its exit status, or nil on timeout (then kills it).
    func exitStatus(timeout: Duration = .seconds(120)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning {
            await killHard()
            return nil
        }
        await output.waitForEnd()
        return process.terminationStatus
    }

    /// SIGKILL: no chance to flush, clean up or finish a write.
    func killHard() async {
        kill(process.processIdentifier, SIGKILL)
        // Bounded: Foundation learns of the death through a socket a grandchild could still hold.
        for _ in 0..<15_000 where process.isRunning { try? await Task.sleep(for: .milliseconds(2)) }
        // What a skewed child's libfaketime removes at exit, which SIGKILL skipped.
        if !process.isRunning { SkewedClock.removeLeftovers(of: process.processIdentifier) }
        await output.waitForEnd()  // every line the child wrote before dying counts as acknowledged
    }
}

/// Bytes from a pipe, split into lines as they arrive.
final class LineBuffer: Sendable {
    private let state = Mutex<(lines: [String], partial: String, ended: Bool)>(([], "", false))

    var lines: [String] { state.withLock { $0.lines } }

    /// Called at end of file.
    func finish() { state.withLock { $0.ended = true } }

    /// Waits (up to 10 s) until the writer closed the pipe and every byte was read. Sleeps
    /// without blocking a thread: the test pool has only as many threads as cores.
    func waitForEnd() async {
        for _ in 0..<2000 where !state.withLock({ $0.ended }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    func append(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        state.withLock { state in
            state.partial += text
            while let newline = state.partial.firstIndex(of: "\n") {
                state.lines.append(String(state.partial[..<newline]))
                state.partial.removeSubrange(...newline)
            }
        }
    }
}
