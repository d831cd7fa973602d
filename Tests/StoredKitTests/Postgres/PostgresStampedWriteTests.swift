import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// The stamped statements of layout 3 (``PostgresSchema/stampedUpsert`` and
/// ``PostgresSchema/stampedRemove``) on a real server: whatever order writes arrive in, the key
/// holds the one with the highest (stamp, replica), a removal included; the same write sent twice
/// changes nothing the second time; a stamp far ahead of the server's clock is clamped.
@Suite(
    "PostgreSQL stamped writes: the change made last wins",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresStampedWriteTests {
    /// One namespace on the test server, written by hand with the stamped statements.
    struct Namespace {
        let connection: PostgresConnection
        let name = PostgresTestServer.freshNamespace("stamped")
        let now = Int64(Date().timeIntervalSince1970 * 1000)

        init() throws {
            let url = try PostgresTestServer.requireURL()
            connection = try PostgresConnection(address: PostgresAddress(url))
            // A store's open creates (or upgrades to) the layout.
            _ = try PostgresBackend(url: url, namespace: name).load()
            // As a store's bump does: otherwise the hand-edit trigger takes these for psql's and
            // stamps them with the server's clock.
            try connection.query("SELECT set_config('storedkit.writer', 'on', false)")
        }

        /// Sets `key` to the string `value` stamped `ms`/`counter` by `replica`; returns the stamp
        /// the server recorded, nil when the write lost (or was already there).
        @discardableResult
        func set(_ key: String, _ value: String, ms: Int64, counter: Int = 0, replica: String = "a", skew: Int64 = 60_000)
            throws -> Int64?
        {
            let (type, columns) = try PostgresValueColumns.columns(for: .string(value), key: key)
            let rows = try connection.query(
                PostgresSchema.stampedUpsert,
                [name, key, type] + columns + ["1", String(ms), String(counter), replica, String(skew)])
            return rows.first?.first.flatMap { $0.flatMap { Int64($0) } }
        }

        @discardableResult
        func remove(_ key: String, ms: Int64, counter: Int = 0, replica: String = "a") throws -> Int64? {
            let rows = try connection.query(
                PostgresSchema.stampedRemove, [name, key, "1", String(ms), String(counter), replica, "60000"])
            return rows.first?.first.flatMap { $0.flatMap { Int64($0) } }
        }

        /// The key's value, or nil when the table holds no row.
        func value(_ key: String) throws -> String? {
            try connection.query(
                "SELECT string_value FROM storedkit.preferences WHERE namespace = $1 AND key = $2", [name, key]
            ).first?.first ?? nil
        }
    }

    @Test func theLaterStampWinsInEitherOrderOfArrival() throws {
        let space = try Namespace()
        try space.set("early-first", "old", ms: space.now - 10_000)
        try space.set("early-first", "new", ms: space.now)
        #expect(try space.value("early-first") == "new")

        try space.set("late-first", "new", ms: space.now)
        #expect(try space.set("late-first", "old", ms: space.now - 10_000) == nil, "the older write loses")
        #expect(try space.value("late-first") == "new")
    }

    @Test func equalStampsAreBrokenByTheReplicaIdInByteOrder() throws {
        let space = try Namespace()
        // "B" < "a" in byte order, though many collations put "a" first.
        try space.set("tie", "from a", ms: space.now, replica: "a")
        #expect(try space.set("tie", "from B", ms: space.now, replica: "B") == nil)
        #expect(try space.value("tie") == "from a")
        try space.set("tie", "from a, later counter", ms: space.now, counter: 1, replica: "B")
        #expect(try space.value("tie") == "from a, later counter")
    }

    @Test func theSameWriteSentTwiceChangesNothingTheSecondTime() throws {
        let space = try Namespace()
        #expect(try space.set("k", "v", ms: space.now) == space.now)
        let revision = "SELECT revision FROM storedkit.preferences WHERE namespace = $1 AND key = 'k'"
        let before = try space.connection.query(revision, [space.name])
        #expect(try space.set("k", "v", ms: space.now) == nil)
        #expect(try space.connection.query(revision, [space.name]) == before)
    }

    @Test func aRemovalAndASetConvergeInBothOrders() throws {
        let space = try Namespace()
        // The removal is later: it wins, whichever arrives first.
        try space.set("a", "set", ms: space.now - 5)
        try space.remove("a", ms: space.now)
        #expect(try space.value("a") == nil)
        #expect(try space.remove("b", ms: space.now) != nil, "a removal of a key never held is recorded")
        #expect(try space.set("b", "set", ms: space.now - 5) == nil, "the earlier set loses to the tombstone")
        #expect(try space.value("b") == nil)
        // The set is later: set, remove and set again converge on the set.
        try space.remove("c", ms: space.now - 5)
        try space.set("c", "again", ms: space.now)
        #expect(try space.remove("c", ms: space.now - 5) == nil)
        #expect(try space.value("c") == "again")
    }

    @Test func aStampFarAheadOfTheServerClockIsClampedToTheSkew() throws {
        let space = try Namespace()
        let yearAhead = space.now + 365 * 86_400_000
        let recorded = try #require(try space.set("future", "v", ms: yearAhead, skew: 60_000))
        #expect(recorded < yearAhead)
        #expect(recorded <= Int64(Date().timeIntervalSince1970 * 1000) + 60_000)
        // A write made two minutes from now (as a correct clock will stamp it then) beats it.
        #expect(try space.set("future", "later", ms: space.now + 120_000, skew: 300_000) != nil)
        #expect(try space.value("future") == "later")
    }
}
