import Foundation

/// The PostgreSQL server of the PostgreSQL scenarios: `STOREDKIT_POSTGRES_URL` when set, else a
/// throwaway one this run starts (Scripts/postgres-test-server.sh: durable settings, fsync on)
/// and stops at exit. Started once, on first use, and said so.
///
/// ```swift
/// let server = try BenchPostgresServer.shared()
/// server.url  //=> "postgresql://postgres@127.0.0.1:41234/postgres"
/// ```
final class BenchPostgresServer: @unchecked Sendable {
    let url: String
    /// Where it came from, for the report.
    let origin: String
    private let directory: String?

    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Scripts/postgres-test-server.sh").path

    /// Touched only by the scenarios, which run one at a time on the main thread.
    nonisolated(unsafe) private static var started: Result<BenchPostgresServer, BenchmarkError>?

    /// The server, started on the first call; the same failure every later call when none can start.
    static func shared() throws -> BenchPostgresServer {
        if let started { return try started.get() }
        let result: Result<BenchPostgresServer, BenchmarkError>
        do {
            result = .success(try BenchPostgresServer())
        } catch {
            result = .failure(error as? BenchmarkError ?? .unexpected("\(error)"))
        }
        started = result
        if case .success(let server) = result {
            print("PostgreSQL: \(server.origin)")
            atexit { if case .success(let server) = BenchPostgresServer.started { server.stop() } }
        }
        return try result.get()
    }

    private init() throws {
        if let given = ProcessInfo.processInfo.environment["STOREDKIT_POSTGRES_URL"] {
            url = given
            origin = "the server of STOREDKIT_POSTGRES_URL"
            directory = nil
            return
        }
        let directory = FileManager.default.temporaryDirectory.appending(path: "stored-bench-pg-\(UUID().uuidString)").path
        let output = try Self.run("start", directory)
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("STOREDKIT_POSTGRES_URL=") }) else {
            throw BenchmarkError.unexpected("the throwaway PostgreSQL server did not start: \(output)")
        }
        url = String(line.dropFirst("STOREDKIT_POSTGRES_URL=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        origin = "started a throwaway server for this run at \(url) (durable: fsync and synchronous_commit on)"
        self.directory = directory
    }

    private func stop() {
        if let directory { _ = try? Self.run("stop", directory) }
    }

    private static func run(_ command: String, _ directory: String) throws -> String {
        guard FileManager.default.fileExists(atPath: script) else {
            throw BenchmarkError.unexpected(
                "no \(script): run stored-bench from a StoredKit checkout, or set STOREDKIT_POSTGRES_URL")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, command, directory]
        // A file, not a pipe: the server the script starts could keep a pipe's write end open.
        let outputFile = FileManager.default.temporaryDirectory.appending(path: "stored-bench-pg-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputFile) }
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: outputFile)
        try process.run()
        process.waitUntilExit()
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw BenchmarkError.unexpected("\(script) \(command) failed (make deps installs postgresql): \(output)")
        }
        return output
    }
}
