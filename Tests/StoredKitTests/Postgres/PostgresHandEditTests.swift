import Foundation
import StoredKitTestSupport
import Synchronization
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// Someone edits the table with `psql`: triggers bump the revision and notify, so open stores
/// learn of it as of any other writer; the store's own writes are bumped and announced once.
@Suite(
    "PostgreSQL hand edits reach the stores",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresHandEditTests {
    @Test func anInsertUpdateAndDeleteWithPsqlReachAnObserver() async throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("hand")
        let store = try PreferenceStore(.postgres(url: url, namespace: namespace))
        store.set(1, forKey: "created")  // the tables exist before psql writes to them
        try store.flush()
        let seen = Mutex<[Change]>([])
        let token = store.observe("greeting") { change in seen.withLock { $0.append(change) } }
        try psql(
            url,
            "INSERT INTO storedkit.preferences (namespace, key, type, string_value) VALUES ('\(namespace)', 'greeting', 'string', 'by hand')"
        )
        #expect(await waitUntil { seen.withLock { $0.last?.newValue == .string("by hand") } })
        try psql(
            url, "UPDATE storedkit.preferences SET string_value = 'edited' WHERE namespace = '\(namespace)' AND key = 'greeting'")
        #expect(await waitUntil { seen.withLock { $0.last?.newValue == .string("edited") } })
        try psql(url, "DELETE FROM storedkit.preferences WHERE namespace = '\(namespace)' AND key = 'greeting'")
        #expect(await waitUntil { seen.withLock { $0.count == 3 && $0.last?.newValue == nil } })
        #expect(seen.withLock { $0.allSatisfy { $0.origin == .external } })
        #expect(store.value(forKey: "greeting", as: String.self) == nil)
        withExtendedLifetime(token) {}
    }

    @Test func theStoresOwnCommitBumpsTheRevisionOnce() throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("once")
        let backend = PostgresBackend(url: url, namespace: namespace)
        _ = try backend.load()
        _ = try backend.commit(BackendChanges(values: ["a": .int(1), "b": .int(2), "c": nil]))
        _ = try backend.commit(BackendChanges(values: ["a": nil]))
        let connection = try PostgresConnection(address: PostgresAddress(url))
        let revision = try connection.query(PostgresSchema.selectNamespace, [namespace]).first?.first ?? nil
        #expect(revision == "2")
    }

    @Test func aHandUpdateOrDeleteOfManyRowsIsOneRevisionAndOneNotification() async throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("bulk")
        let store = try PreferenceStore(.postgres(url: url, namespace: namespace))
        let keys = (0..<50).map { "k\($0)" }
        for (index, key) in keys.enumerated() { store.set(index, forKey: key) }
        try store.flush()
        let seen = Mutex<[Change]>([])
        let tokens = keys.map { key in store.observe(key) { change in seen.withLock { $0.append(change) } } }
        let listening = try PostgresConnection(address: PostgresAddress(url))
        try listening.run("LISTEN \(PostgresSchema.channel)")
        let before = try revision(of: namespace, url)
        let token = try #require(
            try listening.query("SELECT notify_token FROM storedkit.namespaces WHERE namespace = $1", [namespace]).first?.first
                ?? nil)

        try psql(url, "UPDATE storedkit.preferences SET int_value = int_value + 100 WHERE namespace = '\(namespace)'")
        #expect(await waitUntil { seen.withLock { $0.count } == 50 })
        #expect(try revision(of: namespace, url) == before + 1, "one revision for the whole statement")
        #expect(store.value(forKey: "k7", as: Int.self) == 107)
        try psql(url, "DELETE FROM storedkit.preferences WHERE namespace = '\(namespace)' AND key LIKE 'k1%'")
        #expect(await waitUntil { seen.withLock { $0.count } == 61 })
        #expect(try revision(of: namespace, url) == before + 2)
        #expect(store.keys.count == 39)

        // Notifications travel apart from the rows: wait for both, then count them.
        var notifications: [String] = []
        #expect(
            await waitUntil {
                _ = listening.consumeInput()
                notifications += listening.takeNotifications().map(\.payload).filter { $0.hasSuffix(" " + token) }
                return notifications.count >= 2
            })
        #expect(notifications == ["\(before + 1) \(token)", "\(before + 2) \(token)"])
        let reopened = try PreferenceStore(.postgres(url: url, namespace: namespace))
        #expect(reopened.dictionaryRepresentation() == store.dictionaryRepresentation())
        withExtendedLifetime(tokens) {}
    }

    private func revision(of namespace: String, _ url: String) throws -> Int {
        let connection = try PostgresConnection(address: PostgresAddress(url))
        let text = try connection.query(PostgresSchema.selectNamespace, [namespace]).first?.first ?? nil
        return text.flatMap { Int($0) } ?? -1
    }

    /// A hand edit is a write made now on the server: stamped with the server's clock (replica
    /// `server`) above what it replaces, even a row stamped ahead of that clock, so a hand edit
    /// always takes effect, and a store's write made after reading it wins over it in turn.
    @Test func handEditsAreStampedAboveWhatTheyReplace() throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("hand-stamp")
        let wall = ManualWallClock(Int64(Date().timeIntervalSince1970 * 1_000) + 30_000)  // ahead, within the skew
        let backend = PostgresBackend(
            url: url, namespace: namespace, tombstoneRetention: 7 * 86_400, pruneEvery: 100,
            clock: HybridLogicalClock(physical: wall.read))
        let store = try PreferenceStore(backend)
        store.set("store", forKey: "k")
        try store.flush()
        let connection = try PostgresConnection(address: PostgresAddress(url))
        func stamp(_ table: String) throws -> (ms: Int64, counter: Int64, replica: String)? {
            let row = try connection.query(
                "SELECT stamp_ms, stamp_counter, stamp_replica FROM storedkit.\(table) WHERE namespace = $1 AND key = 'k'",
                [namespace]
            ).first
            guard let row, let ms = row[0].flatMap({ Int64($0) }), let counter = row[1].flatMap({ Int64($0) }) else { return nil }
            return (ms, counter, row[2] ?? "")
        }
        let written = try #require(try stamp("preferences"))
        try psql(url, "UPDATE storedkit.preferences SET string_value = 'psql' WHERE namespace = '\(namespace)' AND key = 'k'")
        let edited = try #require(try stamp("preferences"))
        #expect(edited.replica == PostgresLayout.handEditReplica)
        #expect((edited.ms, edited.counter) > (written.ms, written.counter))
        try psql(url, "DELETE FROM storedkit.preferences WHERE namespace = '\(namespace)' AND key = 'k'")
        let tombstone = try #require(try stamp("removed_keys"))
        #expect(tombstone.replica == PostgresLayout.handEditReplica)
        #expect((tombstone.ms, tombstone.counter) > (edited.ms, edited.counter))
        try psql(
            url,
            "INSERT INTO storedkit.preferences (namespace, key, type, string_value) VALUES ('\(namespace)', 'k', 'string', 'again')"
        )
        let inserted = try #require(try stamp("preferences"))
        #expect((inserted.ms, inserted.counter) > (tombstone.ms, tombstone.counter))

        _ = try backend.load()  // the store reads the hand edit (its clock witnesses it), then writes after it
        wall.advance(by: -60_000)
        store.set("after psql", forKey: "k")
        try store.flush()
        #expect(
            try connection.query("SELECT string_value FROM storedkit.preferences WHERE namespace = $1", [namespace]) == [
                ["after psql"]
            ])
    }

    private func psql(_ url: String, _ sql: String) throws {
        try ExternalCommand.psql(url, sql)
    }
}
