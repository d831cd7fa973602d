import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// Tombstones of removed keys are pruned after a retention period; a store whose revision is
/// older than what was pruned cannot learn of those removals row by row, so it reads the
/// namespace whole.
@Suite(
    "PostgreSQL tombstones are pruned without losing a removal",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresTombstoneTests {
    @Test func aStoreBehindPrunedTombstonesReloadsTheNamespaceWhole() throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("tombstones")
        let behind = PostgresBackend(url: url, namespace: namespace)
        _ = try behind.load()
        _ = try behind.commit(BackendChanges(values: ["x": .int(1), "y": .int(1)]))
        let pruner = PostgresBackend(url: url, namespace: namespace, tombstoneRetention: 0, pruneEvery: 1)
        _ = try pruner.load()
        _ = try pruner.commit(BackendChanges(values: ["x": nil]))
        _ = try pruner.commit(BackendChanges(values: ["z": .int(1)]))
        let connection = try PostgresConnection(address: PostgresAddress(url))
        let left = try connection.query("SELECT count(*) FROM storedkit.removed_keys WHERE namespace = $1", [namespace])
        #expect(left.first?.first == "0", "the tombstone was pruned")
        let values = try behind.load().values
        #expect(values == ["y": .int(1), "z": .int(1)])
    }

    @Test func tombstonesWithinTheRetentionPeriodAreKept() throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("kept")
        let backend = PostgresBackend(url: url, namespace: namespace, tombstoneRetention: 3600, pruneEvery: 1)
        _ = try backend.load()
        _ = try backend.commit(BackendChanges(values: ["x": .int(1)]))
        _ = try backend.commit(BackendChanges(values: ["x": nil]))
        _ = try backend.commit(BackendChanges(values: ["y": .int(1)]))
        let connection = try PostgresConnection(address: PostgresAddress(url))
        let left = try connection.query("SELECT count(*) FROM storedkit.removed_keys WHERE namespace = $1", [namespace])
        #expect(left.first?.first == "1")
    }
}

/// A database whose tables a StoredKit before 0.9.0 made, before tombstones were pruned (and
/// without a preferences table yet): `postgres-setup` moves it, adding what it lacked.
@Suite(
    "PostgreSQL tables of a layout before tombstone pruning are moved by postgres-setup",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresLayoutUpgradeTests {
    @Test func tablesWithoutThePruningColumnsAreMovedAndGainThem() throws {
        let url = try PostgresTestServer.requireURL()
        let admin = try PostgresConnection(address: PostgresAddress(url))
        let database = "storedkit_upgrade_\(UUID().uuidString.prefix(8).lowercased())"
        try admin.run("CREATE DATABASE \(database)")
        defer { try? admin.run("DROP DATABASE \(database) WITH (FORCE)") }
        let databaseURL = String(url[..<(url.range(of: "/", options: .backwards)?.upperBound ?? url.endIndex)]) + database
        let old = try PostgresConnection(address: PostgresAddress(databaseURL))
        try old.run(
            """
            CREATE TABLE storedkit_namespaces (namespace text PRIMARY KEY, revision bigint NOT NULL DEFAULT 0,
                schema_version bigint NOT NULL DEFAULT 0);
            CREATE TABLE storedkit_removed_keys (namespace text NOT NULL, key text NOT NULL, revision bigint NOT NULL,
                PRIMARY KEY (namespace, key));
            INSERT INTO storedkit_namespaces (namespace, revision) VALUES ('kept', 3);
            INSERT INTO storedkit_removed_keys (namespace, key, revision) VALUES ('kept', 'gone', 2);
            """)
        #expect(throws: StoreError.self) { try PreferenceStore(.postgres(url: databaseURL, namespace: "kept")) }
        try PostgresSetup.apply(url: databaseURL, role: "", readOnlyRole: nil)
        let store = try PreferenceStore(.postgres(url: databaseURL, namespace: "kept"))
        store.set(1, forKey: "a")
        try store.flush()
        let revision = try old.query("SELECT revision, pruned_revision FROM storedkit.namespaces WHERE namespace = 'kept'")
        #expect(revision.first == ["4", "0"])
        #expect(try old.query("SELECT key, revision FROM storedkit.removed_keys WHERE namespace = 'kept'") == [["gone", "2"]])
    }
}
