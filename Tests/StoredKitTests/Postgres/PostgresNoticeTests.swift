import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// What the server says besides results (a trigger's `RAISE WARNING`, a deprecation notice) is an
/// event of the store whose command caused it, never text on standard error.
@Suite(
    "PostgreSQL notices reach the store's events",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresNoticeTests {
    @Test func aWarningRaisedByTheStoresWriteIsAServerNoticeEvent() throws {
        let url = try PostgresTestServer.requireURL()
        // A database of its own: the trigger below must not warn other tests' writes.
        let database = "storedkit_notice_\(UUID().uuidString.replacingOccurrences(of: "-", with: "_").lowercased())"
        let admin = try PostgresConnection(address: PostgresAddress(url))
        try admin.run("CREATE DATABASE \(database)")
        defer { try? admin.run("DROP DATABASE \(database) WITH (FORCE)") }
        let slash = try #require(url.range(of: "/", options: .backwards))
        let databaseURL = String(url[..<slash.upperBound]) + database

        let store = try PreferenceStore(.postgres(url: databaseURL, namespace: "warned"))
        store.set(1, forKey: "a")
        try store.flush()
        #expect(!store.recentEvents.contains { $0.isServerNotice }, "creating the tables is not news")
        let editor = try PostgresConnection(address: PostgresAddress(databaseURL))
        try editor.run(
            """
            CREATE FUNCTION warn_on_write() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE WARNING 'disk almost full'; RETURN NULL; END $$;
            CREATE TRIGGER warn AFTER INSERT ON storedkit.preferences
                FOR EACH STATEMENT EXECUTE FUNCTION warn_on_write();
            """)
        store.set(2, forKey: "a")
        try store.flush()
        let notices = store.recentEvents.compactMap { event -> (String, String)? in
            guard case .serverNotice(let server, let message) = event else { return nil }
            return (server, message)
        }
        #expect(notices.map { $0.1 } == ["WARNING: disk almost full"])
        #expect(notices.first?.0.hasSuffix("/" + database) == true, "\(notices)")
    }
}

extension StoreEvent {
    var isServerNotice: Bool {
        if case .serverNotice = self { return true }
        return false
    }
}
