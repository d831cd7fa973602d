import Foundation

/// A program run to the end, as a person at a terminal would run it: `sqlite3`, `psql`, a
/// built executable. Its standard error goes where the test's goes.
///
/// ```swift
/// try ExternalCommand.run("/usr/bin/sqlite3", [path, "select count(*) from preferences"]).output  //=> "3\n"
/// try ExternalCommand.psql(url, "SELECT 1")  //=> "1"
/// ```
public enum ExternalCommand {
    /// Runs `executable` with `arguments` (and `input` on its standard input, if any); returns
    /// its exit status and standard output.
    ///
    /// ```swift
    /// let (status, output) = try ExternalCommand.run("/usr/bin/env", ["echo", "hi"])  //=> (0, "hi\n")
    /// ```
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        let inputPipe = input.map { _ in Pipe() }
        if let inputPipe { process.standardInput = inputPipe }
        try process.run(killingAfter: Process.safetyNet)
        if let input, let inputPipe {
            inputPipe.fileHandleForWriting.write(input)
            try inputPipe.fileHandleForWriting.close()
        }
        // Read before waiting: a child that fills the pipe would otherwise never exit.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs one SQL command with `psql` (unaligned, rows only, stopping at the first error) and
    /// returns its output, trimmed; throws when psql fails.
    ///
    /// ```swift
    /// try ExternalCommand.psql(url, "SELECT count(*) FROM storedkit.preferences")  //=> "12"
    /// ```
    @discardableResult
    public static func psql(_ url: String, _ sql: String) throws -> String {
        let (status, output) = try run("/usr/bin/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        guard status == 0 else { throw ExternalCommandFailed(description: "psql failed (exit \(status)): \(sql)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A program run by ``ExternalCommand`` did not succeed.
///
/// ```swift
/// "\(error)"  //=> "psql failed (exit 1): SELECT nonsense"
/// ```
public struct ExternalCommandFailed: Error, CustomStringConvertible {
    /// What ran and how it ended.
    ///
    /// ```swift
    /// error.description  //=> "psql failed (exit 1): SELECT nonsense"
    /// ```
    public let description: String
}
