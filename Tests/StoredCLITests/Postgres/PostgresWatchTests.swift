import Foundation
import Testing

/// `stored watch` on a namespace: other machines' writes, and what happens to the connection.
@Suite("stored watch on a PostgreSQL server", .enabled(if: CLIPostgresServer.isEnabled, CLIPostgresServer.skipMessage))
struct PostgresWatchTests {
    @Test func watchSeesWritesFromOtherProcesses() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("watch")
        try cli.run("write", url, "seed", "0", "--int", "--namespace", namespace)
        let watcher = try StoredWatcher([url, "--namespace", namespace, "--count", "2"], cli: cli)
        watcher.waitForError("Watching")
        try cli.run("write", url, "volume", "0.8", "--double", "--namespace", namespace)
        // A hand edit in psql is another writer too.
        try CLIPostgresServer.psql(
            url,
            "INSERT INTO storedkit.preferences (namespace, key, type, string_value) VALUES ('\(namespace)', 'name', 'string', 'Ada')"
        )
        let (status, lines) = watcher.finish()
        #expect(status == 0)
        #expect(lines == ["volume: (none) -> 0.8 (external)", #"name: (none) -> "Ada" (external)"#])
    }

    @Test func watchSaysWhenTheConnectionDropsAndReturns() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("drop")
        try cli.run("write", url, "n", "0", "--int", "--namespace", namespace)
        // The watcher's connections carry a name of their own, so only they are cut: the other
        // tests of this process share the server.
        let name = "watch_\(UUID().uuidString.prefix(8))"
        let watcher = try StoredWatcher([url + "?application_name=\(name)", "--namespace", namespace, "--count", "2"], cli: cli)
        watcher.waitForError("Watching")
        // Cut every connection of the watcher (its listener among them), as a server restart would.
        try CLIPostgresServer.psql(
            url, "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = '\(name)'")
        try cli.run("write", url, "n", "1", "--int", "--namespace", namespace)
        // Seeing this write means the watcher is connected again; the second one lets its
        // diagnostics, printed by another task, reach stderr before it exits.
        watcher.waitForLines(1)
        try cli.run("write", url, "n", "2", "--int", "--namespace", namespace)
        let (status, lines) = watcher.finish()
        let errors = String(decoding: watcher.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 0)
        #expect(lines == ["n: 0 -> 1 (external)", "n: 1 -> 2 (external)"])
        #expect(errors.contains("Lost the connection to postgresql://postgres@127.0.0.1:"), "\(errors)")
        #expect(errors.contains("is back"), "\(errors)")
    }
}
