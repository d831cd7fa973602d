import Foundation

/// Runs the benchmark in a copy of itself whose `XDG_CONFIG_HOME` is the run's work directory, so
/// the UserDefaults baselines (and any store opened by suite name) write there and never into the
/// user's `~/.config`, even if the run crashes. Foundation reads the variable once at start-up,
/// hence a second process rather than `setenv`.
///
/// ```swift
/// if !Isolation.isIsolated { exit(Isolation.runIsolated()) }
/// ```
enum Isolation {
    static let workDirectoryVariable = "STORED_BENCH_WORK_DIRECTORY"

    static var isIsolated: Bool { ProcessInfo.processInfo.environment[workDirectoryVariable] != nil }

    /// Starts the isolated copy with the same arguments, waits for it and removes its work directory.
    /// Returns its exit status (128 + signal if it was killed).
    static func runIsolated() -> Int32 {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stored-bench-\(UUID().uuidString)", isDirectory: true)
        let configHome = directory.appendingPathComponent("config", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // best effort: it is under the temp directory
        let process = Process()
        do {
            try FileManager.default.createDirectory(at: configHome, withIntermediateDirectories: true)
            process.executableURL = try ChildProcess.executableURL()
            process.arguments = Array(CommandLine.arguments.dropFirst())
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_CONFIG_HOME"] = configHome.path
            environment[workDirectoryVariable] = directory.path
            process.environment = environment
            try process.run()
        } catch {
            FileHandle.standardError.write(Data("stored-bench: cannot start the benchmark process: \(error)\n".utf8))
            return 1
        }
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// The run's work directory: the one the isolating parent made, or a new one.
    static func workDirectory() throws -> URL {
        if let path = ProcessInfo.processInfo.environment[workDirectoryVariable] {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stored-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
