import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// A PostgreSQL error names its real cause, from its SQLSTATE and the server's message, and the
/// remedy that fits it: a dropped table is not a privilege problem, a statement timeout is not a
/// busy server, a role's connection limit is not an unreachable server.
@Suite(
    "PostgreSQL errors name their real cause",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresErrorCauseTests {
    @Test("a table dropped while the store is open is named, and created again by the next write")
    func droppedTable() throws {
        let url = try PostgresTestServer.requireURL()
        // A database of its own: the other tests' tables stay.
        let database = "storedkit_dropped_\(UUID().uuidString.replacingOccurrences(of: "-", with: "_").lowercased())"
        let admin = try PostgresConnection(address: PostgresAddress(url))
        try admin.run("CREATE DATABASE \(database)")
        defer { try? admin.run("DROP DATABASE \(database) WITH (FORCE)") }
        let slash = try #require(url.range(of: "/", options: .backwards))
        let databaseURL = String(url[..<slash.upperBound]) + database
        let store = try PreferenceStore(.postgres(url: databaseURL, namespace: "dropped"), durability: .deferred)
        store.set(1, forKey: "a")
        try store.flush()
        let editor = try PostgresConnection(address: PostgresAddress(databaseURL))
        try editor.run("DROP TABLE storedkit.preferences CASCADE")

        store.set(2, forKey: "b")
        let error = try #require(throws: StoreError.self) { try store.flush() }

        let message = "\(error)"
        #expect(message.contains("storedkit.preferences") && message.contains("dropped"), "\(message)")
        #expect(!message.contains("may create and use tables"), "\(message)")
        try store.flush()
        let reopened = try PreferenceStore(.postgres(url: databaseURL, namespace: "dropped"))
        #expect(reopened.value(forKey: "b", as: Int.self) == 2)
    }

    @Test("a statement ended by statement_timeout says so and how to raise it, not 'busy'")
    func statementTimeout() throws {
        let base = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("timeout")
        let store = try PreferenceStore(
            .postgres(url: base + "?options=-c%20statement_timeout%3D200", namespace: namespace))
        store.set(1, forKey: "count")
        try store.flush()
        // The update waits for the namespace row, held here, until statement_timeout ends it.
        let holder = try PostgresConnection(address: PostgresAddress(base))
        try holder.run("BEGIN")
        try holder.query(PostgresSchema.lockNamespace, [namespace])
        let key = StoredKey<Int>("count", default: 0)
        let error = try #require(throws: StoreError.self) { try store.update(key) { $0 += 1 } }
        try holder.run("ROLLBACK")

        guard case .postgres(_, let code, _) = error else { Issue.record("expected a PostgreSQL error, got \(error)"); return }
        #expect(code == "57014")
        #expect(error.description.contains("statement_timeout"), "\(error)")
        #expect(!error.description.contains("busy"), "\(error)")
    }

    @Test("a role's connection limit is named as such, not as an unreachable server")
    func connectionLimit() throws {
        let base = try PostgresTestServer.requireURL()
        let admin = try PostgresConnection(address: PostgresAddress(base))
        try admin.run(
            """
            DO $$ BEGIN CREATE ROLE storedkit_limited LOGIN CONNECTION LIMIT 0;
            EXCEPTION WHEN duplicate_object THEN ALTER ROLE storedkit_limited CONNECTION LIMIT 0; END $$
            """)
        let url = base.replacingOccurrences(of: "://postgres@", with: "://storedkit_limited@")

        let error = try #require(throws: StoreError.self) {
            try PreferenceStore(.postgres(url: url, namespace: PostgresTestServer.freshNamespace("limited")))
        }

        guard case .postgres(_, let code, let message) = error else {
            Issue.record("expected a PostgreSQL error, got \(error)"); return
        }
        #expect(code == "53300", "\(error)")
        #expect(message.contains("too many connections for role"), "\(error)")
        #expect(error.description.contains("CONNECTION LIMIT"), "\(error)")
        #expect(!error.description.contains("Check that the server is running"), "\(error)")
    }
}
