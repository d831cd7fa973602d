import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// A database of StoredKit 0.9.0 (the application role owns the `storedkit_*` tables it created at
/// its first open, written with 0.9.0's own SQL, ``FirstLayoutClient``) is moved into schema
/// `storedkit` by `postgres-setup --apply` without losing a row; until then this version refuses
/// to open it, and after it a client running 0.9.0's SQL fails, naming the release it needs.
@Suite(
    "PostgreSQL upgrade from the first table layout", .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresUpgradeTests {
    @Test func postgresSetupMovesEveryRowAndOlderClientsFailNamingTheRelease() throws {
        let database = try UpgradeDatabase()
        defer { database.drop() }
        let old = try PostgresConnection(address: PostgresAddress(database.url(as: database.app)))
        try old.run(FirstLayoutClient.create)
        #expect(try old.query(FirstLayoutClient.tablesExist).first?.first == "t")
        let none: [String?] = Array(repeating: nil, count: 8)
        func column(_ index: Int, _ text: String) -> [String?] {
            var columns = none
            columns[index] = text
            return columns
        }
        // Two namespaces with every kind of row: values, a removal (tombstone), a schema version,
        // a hand edit through the old trigger.
        try FirstLayoutClient.write(
            old, namespace: "user:1", schemaVersion: 3,
            values: [
                "volume": ("double", column(3, "0.5")), "theme": ("string", column(4, "dark")),
                "count": ("int", column(1, "42")), "gone": ("bool", column(0, "true")),
            ])
        let oldRevision = try FirstLayoutClient.write(old, namespace: "user:1", values: [:], removed: ["gone"])
        for n in 0..<200 {
            try FirstLayoutClient.write(old, namespace: "bulk", values: ["key.\(n)": ("int", column(1, "\(n)"))])
        }
        try old.run(
            "INSERT INTO storedkit_preferences (namespace, key, type, string_value) VALUES ('user:1', 'edited', 'string', 'by hand')"
        )
        let before = try database.sql(
            "SELECT count(*) || ' ' || sum(revision) FROM storedkit_preferences", as: database.app)
        let handRevision = oldRevision + 1

        // This version does not open it, nor make an empty copy of its own: it says what to run.
        let url = database.url(as: database.app)
        #expect {
            try PreferenceStore(.postgres(url: url, namespace: "user:1"))
        } throws: { error in
            "\(error)".contains("stored postgres-setup") && "\(error)".contains("0.9.0")
        }

        // The owner may not move tables the application role owns; as a member of that role it may.
        let owner = database.url(as: database.owner)
        #expect(throws: StoreError.self) { try PostgresSetup.apply(url: owner, role: database.app, readOnlyRole: nil) }
        try database.sql("GRANT \(database.app) TO \(database.owner)")
        try PostgresSetup.apply(url: owner, role: database.app, readOnlyRole: database.reader)

        // Every row, revision, schema version and tombstone, read back by this version.
        let store = try PreferenceStore(.postgres(url: url, namespace: "user:1"))
        #expect(store.schemaVersion == 3)
        #expect(store.value(forKey: "volume", as: Double.self) == 0.5)
        #expect(store.value(forKey: "theme", as: String.self) == "dark")
        #expect(store.value(forKey: "count", as: Int.self) == 42)
        #expect(store.value(forKey: "edited", as: String.self) == "by hand")
        #expect(store.keys == ["count", "edited", "theme", "volume"])
        let bulk = try PreferenceStore(.postgres(url: database.url(as: database.reader), namespace: "bulk"))
        #expect(bulk.keys.count == 200)
        let bulkValues = (0..<200).map { n in bulk.value(forKey: "key." + String(n), as: Int.self) }
        #expect(bulkValues == (0..<200).map { Optional($0) })
        #expect(try database.sql("SELECT count(*) || ' ' || sum(revision) FROM storedkit.preferences") == before)
        #expect(try database.sql("SELECT revision FROM storedkit.namespaces WHERE namespace = 'user:1'") == "\(handRevision)")
        #expect(
            try database.sql("SELECT key || ' ' || revision FROM storedkit.removed_keys WHERE namespace = 'user:1'")
                == "gone \(oldRevision)")
        // The old tables are kept, renamed, for the DBA to drop; the new ones belong to the owner.
        #expect(
            try database.sql("SELECT count(*) FROM storedkit_preferences_layout_1")
                == before.split(separator: " ").first.map(String.init))
        #expect(
            try database.sql("SELECT tableowner FROM pg_tables WHERE schemaname = 'storedkit' AND tablename = 'preferences'")
                == database.owner)

        // The application role writes on, owning nothing.
        store.set(0.7, forKey: "volume")
        try store.flush()
        #expect(
            try database.sql("SELECT double_value FROM storedkit.preferences WHERE namespace = 'user:1' AND key = 'volume'")
                == "0.7")

        // 0.9.0's open passes its check and then fails, naming the release it needs; so does a write.
        let stale = try PostgresConnection(address: PostgresAddress(url))
        #expect(try stale.query(FirstLayoutClient.tablesExist).first?.first == "t")
        let read: () throws -> Void = { _ = try stale.query(FirstLayoutClient.selectAll, ["user:1"]) }
        let write: () throws -> Void = {
            try FirstLayoutClient.write(stale, namespace: "user:1", values: ["volume": ("double", column(3, "0.1"))])
        }
        let look: () throws -> Void = { _ = try stale.query(FirstLayoutClient.selectNamespace, ["user:1"]) }
        let list: () throws -> Void = { _ = try stale.query(FirstLayoutClient.listing, [nil]) }
        for attempt in [read, write, look, list] {
            #expect {
                try attempt()
            } throws: { error in
                guard case .postgres(_, "0A000", let message)? = error as? StoreError else { return false }
                return message.contains("use StoredKit \(PostgresLayout.client) or newer")
            }
        }
        #expect(store.value(forKey: "volume", as: Double.self) == 0.7)
    }

    @Test func aLayoutNewerThanThisClientFailsTheOpenNamingTheRelease() throws {
        let database = try UpgradeDatabase()
        defer { database.drop() }
        try PostgresSetup.apply(url: database.url(as: database.owner), role: database.app, readOnlyRole: nil)
        try database.sql("INSERT INTO storedkit.layout (version, client) VALUES (\(PostgresLayout.version + 1), '9.9.0')")
        #expect {
            try PreferenceStore(.postgres(url: database.url(as: database.app), namespace: "n"))
        } throws: { error in
            guard case .postgres(_, "0A000", let message)? = error as? StoreError else { return false }
            return message.contains("use StoredKit 9.9.0 or newer")
        }
    }

    @Test func aRoleWithoutTheSchemaThatMayNotCreateItIsToldToRunTheSetup() throws {
        let database = try UpgradeDatabase()
        defer { database.drop() }
        #expect {
            try PreferenceStore(.postgres(url: database.url(as: database.app), namespace: "n"))
        } throws: { error in
            guard case .postgres(_, "42501", let message)? = error as? StoreError else { return false }
            return message.contains("stored postgres-setup URL --role ROLE --apply")
        }
    }

    /// A database of its own owned by a fresh owner role, with a fresh application role that may
    /// create tables in `public` (as 0.9.0 needed) and a read-only role.
    final class UpgradeDatabase {
        let name = "upgrade_\(UUID().uuidString.prefix(8).lowercased())"
        let server: String
        let owner: String
        let app: String
        let reader: String

        init() throws {
            server = try PostgresTestServer.requireURL()
            let suffix = name.dropFirst(8)
            (owner, app, reader) = ("owner_\(suffix)", "app_\(suffix)", "reader_\(suffix)")
            let root = try PostgresConnection(address: PostgresAddress(server))
            try root.run("CREATE ROLE \(owner) LOGIN; CREATE ROLE \(app) LOGIN; CREATE ROLE \(reader) LOGIN")
            try root.run("CREATE DATABASE \(name) OWNER \(owner)")
            try sql("GRANT CREATE ON SCHEMA public TO \(app)")
        }

        func url(as role: String) -> String {
            let base = server.hasSuffix("/postgres") ? String(server.dropLast(8)) : server
            return (base + name).replacingOccurrences(of: "://postgres@", with: "://\(role)@")
        }

        /// Runs `text` as `role` (the superuser by default) and returns the first column of the
        /// rows, one per line.
        @discardableResult
        func sql(_ text: String, as role: String = "postgres") throws -> String {
            let connection = try PostgresConnection(address: PostgresAddress(url(as: role)))
            return try connection.query(text).map { $0.first.flatMap { $0 } ?? "" }.joined(separator: "\n")
        }

        func drop() {
            guard let root = try? PostgresConnection(address: PostgresAddress(server)) else { return }
            _ = try? root.run("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            for role in [owner, app, reader] { _ = try? root.run("DROP ROLE IF EXISTS \(role)") }
        }
    }
}
