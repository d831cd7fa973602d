import Foundation
import StoredKitTestSupport

/// Runs the built `stored-demo` without a terminal, as a script would.
///
/// ```swift
/// let result = try DemoProcess.run(["--store", path, "add-room", "Garage"])
/// result.status  //=> 0
/// ```
enum DemoProcess {
    /// Runs the inspection CLI `stored`, built next to the demo; returns its exit status.
    static func runStored(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = try DemoTerminal.demoExecutable().deletingLastPathComponent().appending(path: "stored")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run(killingAfter: Process.safetyNet)
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func run(
        _ arguments: [String], environment: [String: String]? = nil
    ) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = try DemoTerminal.demoExecutable()
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run(killingAfter: Process.safetyNet)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self)
        )
    }
}
