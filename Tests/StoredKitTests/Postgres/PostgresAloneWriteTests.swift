import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// A batch that sets one key commits in one statement (``PostgresSchema/upsertAlone``) instead
/// of a four-round-trip transaction: the same rows, one revision and one notification per
/// write, the hand-edit triggers skipped, and another writer's commits still caught up. Once the
/// namespace row is known, writes bump it with a plain `UPDATE`, and create it again when it went.
@Suite(
    "PostgreSQL one-key writes",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresAloneWriteTests {
    @Test func aOneKeyWriteIsOneRevisionOneNotificationAndTheStoresRow() throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("alone")
        let backend = PostgresBackend.postgres(url: url, namespace: namespace)
        _ = try backend.load()
        let listening = try PostgresConnection(address: PostgresAddress(url))
        try listening.run("LISTEN \(PostgresSchema.channel)")

        #expect(try backend.commit(BackendChanges(values: ["a": .int(1)])) == nil)
        #expect(try backend.commit(BackendChanges(values: ["a": .string("two")])) == nil)
        #expect(try backend.commit(BackendChanges(values: ["b": .double(0.5)])) == nil)

        let rows = try listening.query(
            "SELECT key, type, int_value, string_value, double_value, revision FROM storedkit.preferences WHERE namespace = $1 ORDER BY key",
            [namespace])
        #expect(rows == [["a", "string", nil, "two", nil, "2"], ["b", "double", nil, nil, "0.5", "3"]])
        let revision = try listening.query(PostgresSchema.selectNamespace, [namespace]).first?.first ?? nil
        #expect(revision == "3", "one revision per write: the hand-edit triggers added none")
        let token = try #require(
            try listening.query("SELECT notify_token FROM storedkit.namespaces WHERE namespace = $1", [namespace]).first?.first
                ?? nil)
        var notifications: [String] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while notifications.count < 3, ContinuousClock.now < deadline {
            _ = listening.consumeInput()
            notifications += listening.takeNotifications().map(\.payload).filter { $0.hasSuffix(" " + token) }
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(notifications == ["1 \(token)", "2 \(token)", "3 \(token)"])
        #expect(
            try PostgresBackend.postgres(url: url, namespace: namespace).load().values == [
                "a": .string("two"), "b": .double(0.5),
            ])
    }

    @Test func aOneKeyWriteAfterAnotherWritersReturnsTheirChangesToo() throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("alone-behind")
        let backend = PostgresBackend.postgres(url: url, namespace: namespace)
        let other = PostgresBackend.postgres(url: url, namespace: namespace)
        _ = try backend.load()
        _ = try other.load()
        _ = try backend.commit(BackendChanges(values: ["mine": .int(1)]))
        _ = try other.commit(BackendChanges(values: ["theirs": .int(1), "gone": .int(0)]))
        _ = try other.commit(BackendChanges(values: ["gone": nil]))

        let fresh = try backend.commit(BackendChanges(values: ["mine": .int(2)]))
        #expect(fresh?.values == ["mine": .int(2), "theirs": .int(1)])
        #expect(try backend.load().values == ["mine": .int(2), "theirs": .int(1)])
        #expect(try other.load().values == ["mine": .int(2), "theirs": .int(1)])
    }

    @Test func aWriteAfterTheNamespaceRowWentBehindTheStoresBackCreatesItAgain() throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("alone-gone")
        let backend = PostgresBackend.postgres(url: url, namespace: namespace)
        _ = try backend.load()
        _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))  // the row is known from here on
        let editor = try PostgresConnection(address: PostgresAddress(url))
        func deleteTheNamespace() throws {
            try editor.run("BEGIN")
            try editor.query("SELECT set_config('storedkit.writer', 'on', true)")
            try editor.query("DELETE FROM storedkit.preferences WHERE namespace = $1", [namespace])
            try editor.query("DELETE FROM storedkit.namespaces WHERE namespace = $1", [namespace])
            try editor.run("COMMIT")
        }
        try deleteTheNamespace()
        _ = try backend.commit(BackendChanges(values: ["b": .int(2)]))  // one key: the UPDATE finds no row, then the upsert
        #expect(try PostgresBackend.postgres(url: url, namespace: namespace).load().values == ["b": .int(2)])
        #expect(try backend.load().values == ["b": .int(2)], "the writer's own view: 'a' went with the old row")

        try deleteTheNamespace()
        _ = try backend.commit(BackendChanges(values: ["c": .int(3), "d": .int(4)], schemaVersion: 2))  // a transaction
        let reread = try PostgresBackend.postgres(url: url, namespace: namespace).load()
        #expect(reread.values == ["c": .int(3), "d": .int(4)])
        #expect(try backend.load().values == ["c": .int(3), "d": .int(4)], "the writer's own view")
        #expect(reread.schemaVersion == 2)
        let revision = try editor.query(PostgresSchema.selectNamespace, [namespace]).first?.first ?? nil
        #expect(revision == "1", "the row was created again, from revision 1")
    }
}
