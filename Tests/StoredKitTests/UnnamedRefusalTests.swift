import Foundation
import StoredKitTestSupport
import Testing

@testable import StoredKit

/// A backend that refuses one value of a batch without naming its key (an administrator's CHECK
/// constraint or trigger, a server limit): before, the whole batch stayed pending and failed at
/// every later flush, so no other write ever landed. Now each key is tried alone and only the
/// refused one is dropped, reported by name, as the refusal rule says.
@Suite("Data refused at commit without a key named")
struct UnnamedRefusalTests {
    static let long = String(repeating: "x", count: 200)

    /// Writes the long value and two others in one batch; flush reports the long one alone.
    static func writeAndCheck(_ store: PreferenceStore, reopen: () throws -> PreferenceStore) throws {
        store.set("fine", forKey: "a")
        store.set(Self.long, forKey: "long")
        store.set(2, forKey: "b")
        #expect {
            try store.flush()
        } throws: { error in
            guard case .refused(let key, _)? = error as? StoreError else { return false }
            return key == "long"
        }
        #expect(store.value(forKey: "long", as: String.self) == nil, "memory goes back to the committed value")
        store.set(3, forKey: "c")
        try store.flush()  // nothing of the refused batch is left to fail the next one
        let reopened = try reopen()
        #expect(reopened.value(forKey: "a", as: String.self) == "fine")
        #expect(reopened.value(forKey: "b", as: Int.self) == 2)
        #expect(reopened.value(forKey: "c", as: Int.self) == 3)
        #expect(reopened.value(forKey: "long", as: String.self) == nil)
    }

    @Test func sqliteTriggerThatRefusesLongValues() throws {
        let directory = try TemporaryDirectory()
        let open = { try PreferenceStore(.sqlite(at: directory.database)) }
        let store = try open()
        _ = try ExternalCommand.run(
            "/usr/bin/sqlite3",
            [
                directory.database.path,
                "CREATE TRIGGER short_values BEFORE INSERT ON preferences WHEN length(NEW.value) > 100 "
                    + "BEGIN SELECT RAISE(ABORT, 'values are at most 100 characters here'); END",
            ])
        try Self.writeAndCheck(store, reopen: open)
    }

    @Test(.enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
    func postgresCheckConstraintThatRefusesLongValues() throws {
        // A database of its own: altering the table every other test shares would lock them all out.
        let server = try PostgresTestServer.requireURL()
        let database = "refusal_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try ExternalCommand.psql(server, "CREATE DATABASE \(database)")
        defer { _ = try? ExternalCommand.psql(server, "DROP DATABASE \(database) WITH (FORCE)") }
        let slash = try #require(server.range(of: "/", options: .backwards))
        let url = String(server[..<slash.upperBound]) + database
        do {  // the stores end before the database is dropped
            let open = { try PreferenceStore(.postgres(url: url, namespace: "check")) }
            let store = try open()
            _ = try ExternalCommand.psql(
                url, "ALTER TABLE storedkit.preferences ADD CONSTRAINT short CHECK (length(string_value) <= 100)")
            try Self.writeAndCheck(store, reopen: open)
        }
    }
}
