import Foundation
import StoredKitTestSupport
import Synchronization
import Testing

/// What one run of the `stored` binary produced.
struct Outcome: CustomStringConvertible {
    let status: Int32
    let output: Data
    let errorOutput: String

    var stdout: String { String(decoding: output, as: UTF8.self) }
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    var description: String { "status \(status), stdout: \(stdout), stderr: \(errorOutput)" }
}

/// The built `stored` executable, run as a user would, in a fresh scratch directory per test.
///
/// ```swift
/// let cli = try StoredProcess()
/// defer { cli.removeScratch() }
/// try cli.run("write", "prefs.plist", "n", "3", "--int").status  //=> 0
/// ```
struct StoredProcess {
    /// The directory every run starts in; `XDG_CONFIG_HOME` points here too, so suites stay inside it.
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("stored-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    func removeScratch() {
        try? FileManager.default.removeItem(at: scratch)
    }

    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// The bytes of a file in the scratch directory, `nil` when it does not exist.
    func bytes(_ name: String) -> Data? { FileManager.default.contents(atPath: path(name)) }

    func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: scratch.appendingPathComponent(name))
    }

    @discardableResult
    func run(_ arguments: String..., input: Data? = nil) throws -> Outcome {
        try run(arguments, input: input)
    }

    /// Runs `stored` with `environment` added to the test's own (`MYAPP_VOLUME` for an environment layer).
    @discardableResult
    func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> Outcome {
        let process = try makeProcess(arguments, environment: environment)
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run(killingAfter: Process.safetyNet)
        // Both pipes are drained at once, so a chatty process can never block on a full pipe.
        let errorData = SharedData()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            errorData.bytes.withLock { $0 = data }
        }
        if let input {
            // A child that fails early closes its stdin; that must be an error here, not SIGPIPE
            // killing the whole test run.
            signal(SIGPIPE, SIG_IGN)
            try? stdin.fileHandleForWriting.write(contentsOf: input)
        }
        try? stdin.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, output: outputData,
            errorOutput: String(decoding: errorData.bytes.withLock { $0 }, as: UTF8.self))
    }

    func makeProcess(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = try Self.binary()
        process.arguments = arguments
        process.currentDirectoryURL = scratch
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = scratch.path
        environment.merge(extra) { _, new in new }
        process.environment = environment
        return process
    }

    /// Finds `stored` next to the test bundle: SwiftPM builds it into the same directory.
    static func binary() throws -> URL { try BuiltExecutable.url(named: "stored") }
}

/// Bytes handed from a reading thread to the test.
final class SharedData: Sendable {
    let bytes = Mutex(Data())
}

/// The two backends every command is tested on, told apart only by the file name.
let storeNames = ["prefs.plist", "prefs.sqlite"]
