import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// A database of table layout 2 (StoredKit 0.10.0: no stamps) is upgraded to layout 3 in place:
/// by the first open of a role that owns the tables, or by `stored postgres-setup --apply` when the
/// application role may not alter them (its open says to run that). No row is lost; old rows and
/// tombstones read as stamp zero, older than any stamped write.
@Suite(
    "PostgreSQL layout 2 is upgraded to layout 3 in place",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresStampLayoutUpgradeTests {
    typealias Database = PostgresUpgradeTests.UpgradeDatabase

    /// Sets up the current layout, writes rows and a tombstone as the owner, then takes the
    /// database back to layout 2: the stamp columns, the one-key write function and layout 3's
    /// row go, and layout 2's row is what `storedkit.layout` holds.
    static func layoutTwo() throws -> Database {
        let database = try Database()
        try PostgresSetup.apply(url: database.url(as: database.owner), role: database.app, readOnlyRole: nil)
        let owner = try PostgresConnection(address: PostgresAddress(database.url(as: database.owner)))
        try owner.run(
            """
            SELECT set_config('storedkit.writer', 'on', false);
            INSERT INTO storedkit.namespaces (namespace, revision) VALUES ('n', 2);
            INSERT INTO storedkit.preferences (namespace, key, type, string_value, revision) VALUES ('n', 'theme', 'string', 'dark', 1);
            INSERT INTO storedkit.preferences (namespace, key, type, int_value, revision) VALUES ('n', 'size', 'int', 14, 1);
            INSERT INTO storedkit.removed_keys (namespace, key, revision) VALUES ('n', 'gone', 2);
            ALTER TABLE storedkit.preferences DROP COLUMN stamp_ms, DROP COLUMN stamp_counter, DROP COLUMN stamp_replica;
            ALTER TABLE storedkit.removed_keys DROP COLUMN stamp_ms, DROP COLUMN stamp_counter, DROP COLUMN stamp_replica;
            DROP FUNCTION \(PostgresLayout.writeAloneSignature);
            DELETE FROM storedkit.layout WHERE version = 3;
            INSERT INTO storedkit.layout (version, client) VALUES (2, '0.10.0');
            """)
        return database
    }

    static func stamps(_ database: Database) throws -> String {
        try database.sql(
            """
            SELECT string_agg(key || ' ' || stamp_ms || '.' || stamp_counter || ' ' || quote_literal(stamp_replica), ', ' ORDER BY key)
                FROM (SELECT key, stamp_ms, stamp_counter, stamp_replica FROM storedkit.preferences
                    UNION ALL SELECT key, stamp_ms, stamp_counter, stamp_replica FROM storedkit.removed_keys) AS s
            """)
    }

    @Test func theOwnersOpenAddsTheStampsLosingNoRow() throws {
        let database = try Self.layoutTwo()
        defer { database.drop() }
        let store = try PreferenceStore(.postgres(url: database.url(as: database.owner), namespace: "n"))
        #expect(store.value(forKey: "theme", as: String.self) == "dark")
        #expect(store.value(forKey: "size", as: Int.self) == 14)
        #expect(try Self.stamps(database) == "gone 0.0 '', size 0.0 '', theme 0.0 ''")
        #expect(try database.sql("SELECT string_agg(version::text, ',' ORDER BY version) FROM storedkit.layout") == "2,3")
        // A stamped write beats the unstamped rows.
        store.set("light", forKey: "theme")
        try store.flush()
        #expect(try database.sql("SELECT string_value FROM storedkit.preferences WHERE key = 'theme'") == "light")
    }

    @Test func anApplicationRoleIsToldToRunTheSetupWhichUpgradesInPlace() throws {
        let database = try Self.layoutTwo()
        defer { database.drop() }
        let app = database.url(as: database.app)
        #expect {
            try PreferenceStore(.postgres(url: app, namespace: "n"))
        } throws: { error in
            guard case .postgres(_, "42501", let message)? = error as? StoreError else { return false }
            return message.contains("layout 2") && message.contains("stored postgres-setup URL --role ROLE --apply")
        }
        #expect(try database.sql("SELECT string_agg(version::text, ',') FROM storedkit.layout") == "2", "it changed nothing")

        try PostgresSetup.apply(url: database.url(as: database.owner), role: database.app, readOnlyRole: nil)
        let store = try PreferenceStore(.postgres(url: app, namespace: "n"))
        #expect(store.value(forKey: "theme", as: String.self) == "dark")
        #expect(try Self.stamps(database) == "gone 0.0 '', size 0.0 '', theme 0.0 ''")
        store.set(15, forKey: "size")  // the one-key write, through the function the setup granted
        try store.flush()
        #expect(try database.sql("SELECT int_value FROM storedkit.preferences WHERE key = 'size'") == "15")
    }
}
