import Foundation
import Synchronization
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// A commit whose changes fit its `NOTIFY` is applied by a current listener without a read; a
/// gap, a large commit, a payload that does not read, or another version's payload falls back
/// to the catch-up read and loses nothing. ``PostgresBackend/catchUpReads`` counts the reads.
@Suite(
    "PostgreSQL changes carried by notifications",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresNotifiedChangesTests {
    @Test func smallCommitsAndRemovalsAreAppliedWithoutARead() throws {
        let (backend, other, probe) = try watchedBesideAnother("notified")
        _ = try other.commit(BackendChanges(values: ["a": .int(1), "b": .string("x")]))  // a transaction
        _ = try other.commit(BackendChanges(values: ["a": .int(2)]))  // one statement
        _ = try other.commit(BackendChanges(values: ["b": nil, "c": .bool(true)]))  // with a removal
        try probe.roundTrip()
        let reads = backend.catchUpReads.load(ordering: .relaxed)
        #expect(try backend.load().values == ["other": .int(0), "a": .int(2), "c": .bool(true)])
        #expect(backend.catchUpReads.load(ordering: .relaxed) == reads)
        #expect(backend.state.withLock { $0.revision } == other.state.withLock { $0.revision })
    }

    @Test func valuesCarriedByTheNotificationAreExactlyWhatTheRowsHold() throws {
        let (backend, other, probe) = try watchedBesideAnother("notified-exact")
        let values: [String: StoredValue] = [
            "negativeZero": .double(-0.0), "large": .double(1e20), "nan": .double(.nan),
            "nanPayload": .double(Double(nan: 5, signaling: false)), "uintMax": .uint(.max), "intMin": .int(.min),
            "nul": .string("a\u{0}b"), "date": .date(Date(timeIntervalSince1970: 1_700_000_000.123456789)),
            "farDate": .date(Date(timeIntervalSince1970: 400_000_000_000)), "data": .data(Data([0, 1, 255])),
            "tagLike": .dictionary(["$date": .int(1)]), "mixed": .array([.int(1), .double(1), .string("$data")]),
            "flag": .bool(false),
        ]
        _ = try other.commit(BackendChanges(values: values))
        try probe.roundTrip()
        let reads = backend.catchUpReads.load(ordering: .relaxed)
        let applied = try backend.load().values
        #expect(backend.catchUpReads.load(ordering: .relaxed) == reads)
        let fromRows = try PostgresBackend.postgres(url: PostgresTestServer.requireURL(), namespace: other.namespace).load()
        #expect(applied == fromRows.values)
    }

    @Test func aGapFallsBackToAReadAndLosesNothing() throws {
        let (backend, other, probe) = try watchedBesideAnother("notified-gap")
        // A commit whose notification this listener never hears, then one it hears.
        try commitQuietly(other.namespace, key: "unheard", value: 7)
        _ = try other.commit(BackendChanges(values: ["a": .int(1)]))
        try probe.roundTrip()
        let reads = backend.catchUpReads.load(ordering: .relaxed)
        #expect(try backend.load().values == ["other": .int(0), "unheard": .int(7), "a": .int(1)])
        #expect(backend.catchUpReads.load(ordering: .relaxed) == reads + 1)
    }

    @Test func aLargeCommitFallsBackToARead() throws {
        let (backend, other, probe) = try watchedBesideAnother("notified-large")
        let large = String(repeating: "x", count: 8_000)
        _ = try other.commit(BackendChanges(values: ["large": .string(large)]))
        try probe.roundTrip()
        let reads = backend.catchUpReads.load(ordering: .relaxed)
        #expect(try backend.load().values == ["other": .int(0), "large": .string(large)])
        #expect(backend.catchUpReads.load(ordering: .relaxed) == reads + 1)
    }

    @Test func aPayloadThatDoesNotReadFallsBackToARead() throws {
        let (backend, other, probe) = try watchedBesideAnother("notified-malformed")
        try commitQuietly(other.namespace, key: "forged", value: 9, changes: #"{"set":{"forged":"#)
        try probe.roundTrip()
        let reads = backend.catchUpReads.load(ordering: .relaxed)
        #expect(try backend.load().values == ["other": .int(0), "forged": .int(9)])
        #expect(backend.catchUpReads.load(ordering: .relaxed) == reads + 1)
    }

    @Test func anOlderVersionsPayloadFallsBackToARead() throws {
        let (backend, other, probe) = try watchedBesideAnother("notified-old")
        // What a process of the previous version sends: `<revision> <namespace>` only.
        try commitQuietly(other.namespace, key: "old", value: 3, changes: nil)
        try probe.roundTrip()
        let reads = backend.catchUpReads.load(ordering: .relaxed)
        #expect(try backend.load().values == ["other": .int(0), "old": .int(3)])
        #expect(backend.catchUpReads.load(ordering: .relaxed) == reads + 1)
    }

    @Test func anObserverSeesAnotherStoresWritesAndRemovalsWithoutARead() throws {
        let url = try PostgresTestServer.requireURL()
        let probe = try PostgresListenerProbe(url: url)
        let namespace = PostgresTestServer.freshNamespace("notified-store")
        let writer = try PreferenceStore(.postgres(url: url, namespace: namespace), durability: .immediate)
        writer.set(1, forKey: "a")
        // Opened while the listener is live: no "catch up" signal, so every read counted is one
        // a notification caused.
        let backend = PostgresBackend.postgres(url: url, namespace: namespace)
        let reader = try PreferenceStore(backend)
        let seen = Mutex<[Int?]>([])
        let token = reader.observe(StoredKey<Int?>("a", default: nil)) { change in
            if change.origin == .external { seen.withLock { $0.append(change.newValue) } }
        }
        // One at a time: changes heard before a reload runs are merged into one.
        func waitUntilSeen(_ count: Int) {
            let deadline = ContinuousClock.now + .seconds(30)
            while seen.withLock({ $0.count }) < count, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.002) }
        }
        writer.set(2, forKey: "a")
        waitUntilSeen(1)
        writer.removeValue(forKey: "a")
        waitUntilSeen(2)
        withExtendedLifetime(token) {}
        #expect(seen.withLock { $0 } == [2, nil])
        #expect(backend.catchUpReads.load(ordering: .relaxed) == 0)
        withExtendedLifetime(probe) {}
    }

    /// A ``PostgresWatchedPair`` whose watched backend has caught up with the pair's setup.
    private func watchedBesideAnother(_ prefix: String) throws -> (
        backend: PostgresBackend, other: PostgresBackend, probe: PostgresListenerProbe
    ) {
        let pair = try PostgresWatchedPair(prefix)
        _ = try pair.backend.load()
        return (pair.backend, pair.other, pair.probe)
    }

    /// Commits `key` = `value` as a store does (revision bumped, row stamped, no trigger), but
    /// sends `<revision> <namespace>` only when `changes` is nil, a `v2` payload with `changes`
    /// as its text otherwise, or nothing at all by default.
    private func commitQuietly(_ namespace: String, key: String, value: Int, changes: String? = "") throws {
        let connection = try PostgresConnection(address: PostgresAddress(PostgresTestServer.requireURL()))
        let notify: String
        switch changes {
        case .none: notify = ", pg_notify('\(PostgresSchema.channel)', revision::text || ' ' || $1)"
        case .some(""): notify = ""
        case .some: notify = ", pg_notify('\(PostgresSchema.channel)', 'v2 ' || revision || ' ' || (revision - 1) || ' ' || $4)"
        }
        let tail = "\(namespace.utf8.count) \(namespace)" + (changes ?? "")
        try connection.query(
            """
            WITH bumped AS (
                UPDATE storedkit_namespaces SET revision = revision + 1 WHERE namespace = $1
                    RETURNING revision, set_config('storedkit.writer', 'on', true)\(notify)
            )
            INSERT INTO storedkit_preferences (namespace, key, type, int_value, revision)
                SELECT $1, $2, 'int', $3::bigint, revision FROM bumped
            """, [namespace, key, String(value)] + (notify.contains("$4") ? [tail] : []))
    }
}
