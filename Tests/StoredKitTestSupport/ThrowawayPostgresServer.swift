import Foundation

/// A PostgreSQL server of one's own in a fresh directory, driven by
/// Scripts/postgres-test-server.sh (durable settings, fsync on): what the reliability tests, the
/// torture tool and the benchmark start when they need a server they may crash, or none is given.
/// Not stopped on release: call ``stop()``.
///
/// ```swift
/// let server = try ThrowawayPostgresServer(label: "stored-torture-pg")
/// server.url  //=> "postgresql://postgres@127.0.0.1:41234/postgres"
/// try server.crashAndRestart()
/// server.stop()
/// ```
public final class ThrowawayPostgresServer: Sendable {
    /// The server's URL, user `postgres`, database `postgres`.
    ///
    /// ```swift
    /// try PreferenceStore(.postgres(url: server.url, namespace: "test"))
    /// ```
    public let url: String
    /// The cluster directory.
    private let directory: String

    /// The script, found from this source file: the tools run from a StoredKit checkout.
    ///
    /// ```swift
    /// ThrowawayPostgresServer.script  //=> "/work/StoredKit/Scripts/postgres-test-server.sh"
    /// ```
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Scripts/postgres-test-server.sh").path

    /// Starts a server in a new directory under the system temporary directory named `label-<UUID>`;
    /// with `tls`, it also accepts TLS with a self-signed certificate (connect with `sslmode=require`).
    ///
    /// ```swift
    /// let server = try ThrowawayPostgresServer(label: "storedkit-pg")
    /// let secure = try ThrowawayPostgresServer(label: "storedkit-pg-tls", tls: true)
    /// ```
    public init(label: String, tls: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "\(label)-\(UUID().uuidString)").path
        let output = try Self.run("start", directory, tls ? ["ssl"] : [])
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("STOREDKIT_POSTGRES_URL=") }) else {
            throw ThrowawayPostgresServerError(description: "the throwaway PostgreSQL server did not start: \(output)")
        }
        url = String(line.dropFirst("STOREDKIT_POSTGRES_URL=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
    }

    /// A server restart as a power cut does it: `pg_ctl restart -m immediate` (crash recovery at start).
    ///
    /// ```swift
    /// try server.crashAndRestart()
    /// ```
    public func crashAndRestart() throws { _ = try Self.run("restart", directory) }

    /// Crashes the server (`pg_ctl stop -m immediate`) and leaves it down: an outage.
    ///
    /// ```swift
    /// try server.halt()
    /// ```
    public func halt() throws { _ = try Self.run("halt", directory) }

    /// Starts a halted server again on the same port.
    ///
    /// ```swift
    /// try server.resume()
    /// ```
    public func resume() throws { _ = try Self.run("resume", directory) }

    /// Stops the server and removes its directory.
    ///
    /// ```swift
    /// server.stop()
    /// ```
    public func stop() { _ = try? Self.run("stop", directory) }

    private static func run(_ command: String, _ directory: String, _ options: [String] = []) throws -> String {
        guard FileManager.default.fileExists(atPath: script) else {
            throw ThrowawayPostgresServerError(description: "no \(script): run this from a StoredKit checkout")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, command, directory] + options
        // A file, not a pipe: the server the script starts could keep a pipe's write end open.
        let outputFile = FileManager.default.temporaryDirectory.appending(path: "storedkit-pg-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputFile) }
        // One handle for both, so that they share an offset and neither overwrites the other.
        let handle = try FileHandle(forWritingTo: outputFile)
        process.standardOutput = handle
        process.standardError = handle
        try process.run(killingAfter: Process.safetyNet)
        process.waitUntilExit()
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw ThrowawayPostgresServerError(description: "\(script) \(command) failed: \(output)")
        }
        return output
    }
}

/// The script failed: its output says why (often: PostgreSQL is not installed; `make deps` installs it).
///
/// ```swift
/// "\(error)"  //=> "…/postgres-test-server.sh start failed: initdb: command not found"
/// ```
public struct ThrowawayPostgresServerError: Error, CustomStringConvertible {
    /// What failed, with the script's output.
    ///
    /// ```swift
    /// error.description  //=> "…/postgres-test-server.sh start failed: …"
    /// ```
    public let description: String
}
