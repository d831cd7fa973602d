import Foundation

/// The PostgreSQL server the PostgreSQL scenarios run against: the one `--postgres URL` (or
/// `STOREDKIT_POSTGRES_URL`) names, or else a throwaway one started with
/// Scripts/postgres-test-server.sh (durable settings) and stopped on release. Only a server of
/// its own can be restarted.
///
/// ```swift
/// let server = try TortureServer(url: nil)  // says "started a throwaway PostgreSQL server at …"
/// try server.crashAndRestart()
/// ```
final class TortureServer {
    let url: String
    /// The cluster directory of a server this tool started; nil for a given one.
    private let directory: String?

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Scripts/postgres-test-server.sh").path

    init(url given: String?) throws {
        if let given {
            url = given
            directory = nil
            return
        }
        let directory = FileManager.default.temporaryDirectory.appending(path: "stored-torture-pg-\(UUID().uuidString)").path
        let output = try Self.run("start", directory)
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("STOREDKIT_POSTGRES_URL=") }) else {
            throw TortureError("the throwaway PostgreSQL server did not start: \(output)")
        }
        url = String(line.dropFirst("STOREDKIT_POSTGRES_URL=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        self.directory = directory
        complain("started a throwaway PostgreSQL server at \(url) (fsync on)")
    }

    /// A server restart as a power cut does it: `pg_ctl restart -m immediate` (crash recovery at start).
    func crashAndRestart() throws {
        guard let directory else { throw TortureError("server-restart needs a server of its own: run it without --postgres") }
        _ = try Self.run("restart", directory)
    }

    deinit {
        if let directory { _ = try? Self.run("stop", directory) }
    }

    private static func run(_ command: String, _ directory: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, command, directory]
        // A file, not a pipe: the server the script starts could keep a pipe's write end open.
        let outputFile = FileManager.default.temporaryDirectory.appending(path: "stored-torture-pg-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputFile) }
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        try process.run()
        process.waitUntilExit()
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else { throw TortureError("\(script) \(command) failed: \(output)") }
        return output
    }
}
