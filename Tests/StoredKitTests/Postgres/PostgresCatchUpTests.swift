import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// The catch-up read (``PostgresSchema/selectSince``): one statement that says whether to read
/// the namespace whole, decoded straight from libpq's result.
@Suite(
    "PostgreSQL catch-up reads",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresCatchUpTests {
    @Test func integersReadInPlaceAreWhatInt64OfTheirTextIs() throws {
        let connection = try PostgresConnection(address: PostgresAddress(try PostgresTestServer.requireURL()))
        let texts = [
            "0", "-1", "+5", "42", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
            "-9223372036854775809", "", "-", "+", "12a", " 1", "1.0", "007",
        ]
        let array = "{" + texts.map { "\"\($0)\"" }.joined(separator: ",") + "}"
        let read = try connection.query("SELECT unnest($1::text[])", [array]) { result in
            (0..<result.rowCount).map { result.integer($0, 0) }
        }
        #expect(read == texts.map { Int64($0) })
    }

    /// Behind the store's back, the namespace is deleted and written again up to `revision`: 1, below the
    /// store's 2, or 5, past it, where only the new row's token tells the reader that 'a' and 'b' went.
    @Test(arguments: [1, 5]) func aNamespaceDeletedAndWrittenAgainIsReadWhole(upTo revision: Int) throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("rewritten")
        let backend = PostgresBackend.postgres(url: url, namespace: namespace)
        _ = try backend.load()
        _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))
        _ = try backend.commit(BackendChanges(values: ["b": .int(2)]))
        let editor = try PostgresConnection(address: PostgresAddress(url))
        try editor.run("BEGIN")
        try editor.query("SELECT set_config('storedkit.writer', 'on', true)")
        try editor.query("DELETE FROM storedkit.preferences WHERE namespace = $1", [namespace])
        try editor.query("DELETE FROM storedkit.namespaces WHERE namespace = $1", [namespace])
        try editor.query(
            "INSERT INTO storedkit.namespaces (namespace, revision) VALUES ($1, $2::bigint)", [namespace, "\(revision)"])
        try editor.query(
            "INSERT INTO storedkit.preferences (namespace, key, type, int_value, revision) VALUES ($1, 'c', 'int', 3, $2::bigint)",
            [namespace, "\(revision)"])
        try editor.run("COMMIT")
        #expect(try backend.load().values == ["c": .int(3)])
    }

    @Test func anUnchangedNamespaceKeepsItsSnapshotAndARemovalSinceIsApplied() throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("since")
        let backend = PostgresBackend.postgres(url: url, namespace: namespace)
        let other = PostgresBackend.postgres(url: url, namespace: namespace)
        _ = try backend.load()
        _ = try backend.commit(BackendChanges(values: ["a": .int(1), "b": .string("two")], schemaVersion: 3))
        #expect(try backend.load().values == ["a": .int(1), "b": .string("two")])
        _ = try other.load()
        _ = try other.commit(BackendChanges(values: ["a": nil, "c": .bool(true)]))
        let snapshot = try backend.load()
        #expect(snapshot.values == ["b": .string("two"), "c": .bool(true)])
        #expect(snapshot.schemaVersion == 3)
        #expect(try backend.load().values == snapshot.values)
    }
}
