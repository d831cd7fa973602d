import Foundation
import StoredKitTestSupport

/// The built `stored` executable, run in a fresh directory as the article's shell session runs it.
struct StoredTool {
    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Runs `stored` with `arguments` in the example directory (also its `XDG_CONFIG_HOME`).
    @discardableResult
    func run(_ arguments: String...) throws -> Outcome {
        let process = Process()
        process.executableURL = try Self.binary()
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory.url.path
        process.environment = environment
        let output = Pipe()
        // Standard error goes to a file, so a full pipe can never block the tool while stdout is read.
        let errorFile = directory.file(".stderr-\(UUID().uuidString)")
        try Data().write(to: errorFile)
        let errors = try FileHandle(forWritingTo: errorFile)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        process.standardOutput = output
        process.standardError = errors
        try process.run(killingAfter: Process.safetyNet)
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errors.close()
        let stderr = try Data(contentsOf: errorFile)
        return Outcome(
            status: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// `stored` is built into the same directory as the test bundle.
    static func binary() throws -> URL { try BuiltExecutable.url(named: "stored") }
}
