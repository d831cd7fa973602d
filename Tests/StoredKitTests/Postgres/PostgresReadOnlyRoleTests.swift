import Foundation
import Synchronization
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// A real role granted `SELECT` alone (by `postgres-setup`'s read-only grants), in a database of
/// its own: it opens a namespace, reads it and hears the writing role's changes; every write it
/// tries is refused at once, by a typed error naming the key and the privileges it lacks, and
/// nothing stays pending; pending migrations fail its open.
@Suite("PostgreSQL read-only role", .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresReadOnlyRoleTests {
    @Test func readsAndObservesWhatTheWritingRoleWrites() async throws {
        let database = try ReadOnlyDatabase()
        defer { database.drop() }
        let namespace = PostgresTestServer.freshNamespace("shared")
        let writer = try PreferenceStore(.postgres(url: database.writerURL, namespace: namespace), durability: .immediate)
        writer.set(0.5, forKey: "volume")

        let backend = PostgresBackend.postgres(url: database.readerURL, namespace: namespace)
        let reader = try PreferenceStore(backend)
        #expect(reader.isReadOnly)
        let missing = try #require(backend.missingWritePrivilege)
        #expect(missing.contains("INSERT on") && missing.contains("DELETE on"), "\(missing)")
        #expect(reader.value(forKey: "volume", as: Double.self) == 0.5)

        let seen = Mutex<[Double?]>([])
        let observation = reader.observe(StoredKey<Double?>("volume", default: nil)) { change in
            seen.withLock { $0.append(change.newValue) }
        }
        writer.set(0.9, forKey: "volume")
        writer.set("dark", forKey: "theme")
        #expect(await waitUntil { reader.value(forKey: "theme", as: String.self) == "dark" })
        #expect(reader.value(forKey: "volume", as: Double.self) == 0.9)
        // Observers are told after the values are in place (outside the store's lock): wait for them too.
        #expect(await waitUntil { !seen.withLock { $0 }.isEmpty })
        #expect(seen.withLock { $0 } == [0.9])
        withExtendedLifetime(observation) {}
    }

    @Test func everyWriteIsRefusedAtOnceNamingTheKeyAndThePrivilege() async throws {
        let database = try ReadOnlyDatabase()
        defer { database.drop() }
        let namespace = PostgresTestServer.freshNamespace("refused")
        let writer = try PreferenceStore(.postgres(url: database.writerURL, namespace: namespace), durability: .immediate)
        writer.set(0.5, forKey: "volume")
        let reader = try PreferenceStore(.postgres(url: database.readerURL, namespace: namespace))

        reader.set(0.1, forKey: "volume")
        reader.removeValue(forKey: "volume")
        reader.set("x", forKey: "new")
        reader.removeAll()
        #expect(reader.value(forKey: "volume", as: Double.self) == 0.5)
        #expect(reader.value(forKey: "new", as: String.self) == nil)
        let refusedKeys = reader.recentEvents.compactMap { event -> String? in
            guard case .commitFailed(.writeNotPermitted(_, let key, let privilege)) = event,
                privilege.contains("INSERT on")
            else { return nil }
            return key
        }
        #expect(refusedKeys == ["volume", "volume", "new", "volume"], "\(reader.recentEvents)")
        // Nothing pending: a flush has nothing to retry, and the table is as the writer left it.
        try reader.flush()
        #expect(reader.state.withLock { $0.pending.isEmpty })

        #expect {
            try reader.update(StoredKey<Double>("volume", default: 0)) { $0 = 1 }
        } throws: { error in
            guard case .writeNotPermitted(_, "volume", let privilege)? = error as? StoreError else { return false }
            return privilege.contains("UPDATE on")
        }
        #expect {
            try reader.transaction { transaction in
                transaction.set(2, forKey: "b")
                transaction.set(1, forKey: "a")
            }
        } throws: { error in
            guard case .writeNotPermitted(_, "a", _)? = error as? StoreError else { return false }
            return true
        }
        let rows = try database.admin.query(
            "SELECT key, double_value FROM storedkit.preferences WHERE namespace = $1 ORDER BY key", [namespace])
        #expect(rows == [["volume", "0.5"]])
    }

    @Test func pendingMigrationsFailTheOpenAndTheWritingRoleRunsThem() throws {
        let database = try ReadOnlyDatabase()
        defer { database.drop() }
        let namespace = PostgresTestServer.freshNamespace("migrated")
        let first = Migration(version: 1, "first") { context in context.set(1, forKey: "step") }
        let second = Migration(version: 2, "second") { context in context.set(2, forKey: "step") }
        _ = try PreferenceStore(.postgres(url: database.writerURL, namespace: namespace), migrations: [first])

        #expect {
            try PreferenceStore(.postgres(url: database.readerURL, namespace: namespace), migrations: [first, second])
        } throws: { error in
            guard case .migrationFailed(2, "second", let underlying)? = error as? StoreError,
                case .writeNotPermitted(_, nil, let privilege)? = underlying as? StoreError
            else { return false }
            return privilege.contains("UPDATE on") && "\(error)".contains("writing role")
        }
        let version = try database.admin.query(
            "SELECT schema_version FROM storedkit.namespaces WHERE namespace = $1", [namespace])
        #expect(version == [["1"]])

        // Once the writing role ran them, the read-only role opens at the same version.
        _ = try PreferenceStore(.postgres(url: database.writerURL, namespace: namespace), migrations: [first, second])
        let reader = try PreferenceStore(.postgres(url: database.readerURL, namespace: namespace), migrations: [first, second])
        #expect(reader.schemaVersion == 2)
        #expect(reader.value(forKey: "step", as: Int.self) == 2)
    }

    /// A database of its own, set up by `postgres-setup` (as the test server's superuser) with a
    /// fresh role granted only what the read-only role gets.
    final class ReadOnlyDatabase {
        let name = "readonly_\(UUID().uuidString.prefix(8).lowercased())"
        let role: String
        let server: String
        let writerURL: String
        let readerURL: String
        let admin: PostgresConnection

        init() throws {
            server = try PostgresTestServer.requireURL()
            role = "reader_\(name.dropFirst(9))"
            let root = try PostgresConnection(address: PostgresAddress(server))
            try root.run("CREATE DATABASE \(name)")
            try root.run("CREATE ROLE \(role) LOGIN")
            let base = try #require(server.hasSuffix("/postgres") ? String(server.dropLast(8)) : nil)
            writerURL = base + name
            readerURL = writerURL.replacingOccurrences(of: "://postgres@", with: "://\(role)@")
            try PostgresSetup.apply(url: writerURL, role: "", readOnlyRole: role)
            admin = try PostgresConnection(address: PostgresAddress(writerURL))
        }

        func drop() {
            guard let root = try? PostgresConnection(address: PostgresAddress(server)) else { return }
            _ = try? root.run("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            _ = try? root.run("DROP ROLE IF EXISTS \(role)")
        }
    }
}

/// A privilege revoked while a store is open: its writes are dropped and named, not retried at
/// every flush for ever.
@Suite("PostgreSQL privilege revoked after the open", .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresRevokedPrivilegeTests {
    @Test func aRevokedWriteIsDroppedNamedAndNotKeptPending() throws {
        let database = try PostgresReadOnlyRoleTests.ReadOnlyDatabase()
        defer { database.drop() }
        try database.admin.run("GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA storedkit TO \(database.role)")
        // The setup gave the read-only role the access rule `read *`: a writer needs a read-write one too.
        try PostgresAccess.grant(url: database.writerURL, role: database.role, pattern: "*", writable: true)
        let namespace = PostgresTestServer.freshNamespace("revoked")
        let store = try PreferenceStore(.postgres(url: database.readerURL, namespace: namespace), durability: .immediate)
        #expect(!store.isReadOnly)
        store.set(1, forKey: "volume")
        try store.flush()

        try database.admin.run("REVOKE INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA storedkit FROM \(database.role)")
        store.set(2, forKey: "volume")  // committed at once, and refused
        #expect(store.state.withLock { $0.pending.isEmpty })
        #expect(store.value(forKey: "volume", as: Int.self) == 1)
        try store.flush()  // nothing left to retry
        let refused = store.recentEvents.filter { event in
            guard case .commitFailed(.writeNotPermitted(_, "volume", let privilege)) = event else { return false }
            return privilege.contains("permission denied")
        }
        #expect(refused.count == 1, "\(store.recentEvents)")
        // The refusal showed the store its role may only read: it is read-only from now on, as if it
        // had opened so, and refuses the next write at set, naming the privileges the role lacks.
        #expect(store.isReadOnly)
        let seen = Mutex<[Int]>([])
        let observation = store.observe(StoredKey<Int>("volume", default: 0)) { change in
            seen.withLock { $0.append(change.newValue) }
        }
        store.set(3, forKey: "volume")
        #expect(seen.withLock { $0 }.isEmpty, "refused at set, so never shown")
        let atSet = store.recentEvents.filter { event in
            guard case .commitFailed(.writeNotPermitted(_, "volume", let privilege)) = event else { return false }
            return privilege.contains("INSERT on storedkit.namespaces")
        }
        #expect(atSet.count == 1, "\(store.recentEvents)")
        withExtendedLifetime(observation) {}
    }
}
