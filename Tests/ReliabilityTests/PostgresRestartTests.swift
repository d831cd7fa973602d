import Foundation
import StoredKit
import Testing

/// The server crashes (`pg_ctl restart -m immediate`) while a writer and an observer on another
/// pool (another machine, as far as the server can tell) run. The test has a server of its own.
@Suite(
    "A PostgreSQL server crashing under running stores", .serialized,
    .enabled(
        if: PostgresURLs.isEnabled,
        "No PostgreSQL test server: run `make test` (it starts one), or set STOREDKIT_POSTGRES_URL and STOREDKIT_POSTGRES_SOCKET_URL"
    ))
struct PostgresRestartTests {
    @Test func noAcknowledgedWriteIsLostAndTheObserverCatchesUp() async throws {
        _ = try PostgresURLs.require()
        let server = try OwnPostgresServer()
        defer { server.stop() }
        let writer = try PreferenceStore(.postgres(url: server.url, namespace: "restart"))
        let reader = try PreferenceStore(.postgres(url: server.url + "?application_name=reader", namespace: "restart"))
        let seen = ChangeLog()
        let token = reader.observe("n") { seen.append($0) }
        for value in 1...20 {
            writer.set(value, forKey: "n")
            try writer.flush()
        }
        #expect(await seen.wait { $0.last?.newValue == .int(20) })
        try server.crashAndRestart()
        for value in 21...40 {
            writer.set(value, forKey: "n")
            #expect(await flushEventually(writer), "value \(value) was never acknowledged")
        }
        #expect(await seen.wait { $0.last?.newValue == .int(40) && $0.last?.origin == .external })
        let reopened = try PreferenceStore(.postgres(url: server.url + "?application_name=check", namespace: "restart"))
        #expect(reopened.value(forKey: "n", as: Int.self) == 40)
        withExtendedLifetime(token) {}
    }

    /// Flushes until the server takes the pending writes (it may still be recovering).
    private func flushEventually(_ store: PreferenceStore) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if (try? store.flush()) != nil { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

/// A server of the test's own, started and stopped with Scripts/postgres-test-server.sh.
final class OwnPostgresServer: Sendable {
    let directory: String
    let url: String

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Scripts/postgres-test-server.sh").path

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "storedkit-pg-\(UUID().uuidString)").path
        let output = try Self.run("start", directory)
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("STOREDKIT_POSTGRES_URL=") }) else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the test server did not start: \(output)"])
        }
        url = String(line.dropFirst("STOREDKIT_POSTGRES_URL=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
    }

    func crashAndRestart() throws { _ = try Self.run("restart", directory) }

    /// Crashes the server (`pg_ctl stop -m immediate`) and leaves it down: an outage.
    func halt() throws { _ = try Self.run("halt", directory) }

    /// Starts a halted server again on the same port.
    func resume() throws { _ = try Self.run("resume", directory) }

    func stop() { _ = try? Self.run("stop", directory) }

    private static func run(_ command: String, _ directory: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, command, directory]
        // A file, not a pipe: the server the script starts could keep a pipe's write end open.
        let outputFile = FileManager.default.temporaryDirectory.appending(path: "storedkit-pg-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputFile) }
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        try process.run()
        process.waitUntilExit()
        let output = try String(contentsOf: outputFile, encoding: .utf8)
        guard process.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "postgres-test-server.sh \(command) failed"])
        }
        return output
    }
}
