import Foundation
import Synchronization
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// The replica's side of ``PostgresForgedNoticeTests``: with a real role that has nothing but
/// CONNECT, notices it forges (the namespace's token, overheard on the channel, replayed at ever
/// higher revisions) wake a replica's syncer but never change what it holds or its cursor, a
/// real commit after them still arrives, and a flood of them costs a bounded number of reads.
@Suite(
    "PostgreSQL replicas: notices forged by a role with only CONNECT",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct ReplicaForgedNoticeTests {
    /// A replica of a fresh namespace that a plain store writes, and what a forger needs.
    struct Fixture {
        let directory: TemporaryDirectory
        let namespace = PostgresTestServer.freshNamespace("forged-replica")
        let writer: PreferenceStore
        let backend: ReplicatedBackend
        let reader: PreferenceStore
        let intruder: PostgresForgedNoticeTests.Intruder
        /// The namespace's notification token, which anyone listening hears.
        let token: String

        init(_ key: String, _ value: some Codable & Sendable) async throws {
            let url = try PostgresTestServer.requireURL()
            directory = try TemporaryDirectory()
            intruder = try PostgresForgedNoticeTests.Intruder(url: url)
            writer = try PreferenceStore(
                .postgres(url: url, namespace: namespace, timeout: .seconds(120)), durability: .immediate)
            writer.set(value, forKey: key)
            let file = directory.url.appending(path: "reader.replica")
            backend = ReplicatedBackend(
                url: url, namespace: namespace, replica: ReplicaFile(at: file), replicaURL: file, timeout: .seconds(120),
                maximumClockSkew: .seconds(60))
            reader = try PreferenceStore(backend)
            try await reader.synchronize(timeout: .seconds(60))
            let admin = try PostgresConnection(address: PostgresAddress(url))
            let found = try admin.query(
                "SELECT notify_token FROM storedkit.namespaces WHERE namespace = $1", [namespace]
            ).first?.first
            token = try #require(found ?? nil)
        }

        /// The revision the replica's cursor holds.
        func cursorRevision() throws -> Int64 { try backend.replica.syncCursor()?.revision ?? -1 }
    }

    @Test func forgedNoticesChangeNothingAndARealChangeStillArrives() async throws {
        let fixture = try await Fixture("role", "user")
        let seen = Mutex<[String?]>([])
        let observation = fixture.reader.observe(StoredKey<String?>("role", default: nil)) { change in
            seen.withLock { $0.append(change.newValue) }
        }
        defer { observation.cancel() }
        let revision = try fixture.cursorRevision()
        let (namespace, token) = (fixture.namespace, fixture.token)
        let payloads = [
            "v2 \(revision + 1) \(revision) \(namespace.utf8.count) \(namespace)" + #"{"set":{"role":"admin"}}"#,
            "\(revision + 1) \(namespace)", "\(revision + 1) \(token)", "\(Int64.max) \(token)",
            "9223372036854775808 \(token)", "-1 \(token)", "0 \(token)", "\(revision) \(token)", "x \(token)", "", " ",
            String(repeating: "9", count: 7_000),
        ]
        for payload in payloads { try fixture.intruder.notify(payload) }
        try await Task.sleep(for: .milliseconds(400))

        #expect(fixture.reader.value(forKey: "role", as: String.self) == "user")
        #expect(try fixture.cursorRevision() == revision)
        #expect(seen.withLock { $0 }.isEmpty)
        #expect(fixture.reader.syncState?.pendingWrites == 0)

        // A real commit after the forgeries arrives, and only it.
        fixture.writer.set("editor", forKey: "role")
        try await eventually { fixture.reader.value(forKey: "role", as: String.self) == "editor" }
        try await eventually { !seen.withLock { $0 }.isEmpty }
        #expect(seen.withLock { $0 } == ["editor"])
        #expect(try fixture.cursorRevision() > revision)
    }

    @Test func aSecondOfFloodingCostsABoundedNumberOfReads() async throws {
        let fixture = try await Fixture("count", 0)
        let revision = try fixture.cursorRevision()
        let syncer = fixture.backend.syncer
        let reads = syncer.catchUpReads.load(ordering: .relaxed)
        let start = ContinuousClock.now
        // A second of statements of 100 distinct payloads each (the server folds identical ones of
        // one transaction): the replayed token at ever higher revisions, each above what the
        // replica has seen. A single burst is taken in by a few rounds; a flood is what costs.
        var sent: Int64 = 0
        while ContinuousClock.now - start < .seconds(1) {
            try fixture.intruder.connection.query(
                "SELECT pg_notify('\(PostgresSchema.channel)', (\(revision + sent) + n)::text || ' ' || $1) "
                    + "FROM generate_series(1, 100) AS n", [fixture.token])
            sent += 100
            try await Task.sleep(for: .milliseconds(2))
        }
        // A real commit after the flood: heard after every forged notice, on the one listener connection.
        fixture.writer.set(1, forKey: "count")
        try await eventually { fixture.reader.value(forKey: "count", as: Int.self) == 1 }
        // The window: until the reads stopped, none for ten intervals (the listener may still be
        // handing over the flood after the real commit's read).
        var (seenReads, lastRead) = (syncer.catchUpReads.load(ordering: .relaxed), ContinuousClock.now)
        while ContinuousClock.now - lastRead < PostgresBackend.idleReadInterval * 10 {
            try await Task.sleep(for: .milliseconds(10))
            let now = syncer.catchUpReads.load(ordering: .relaxed)
            if now != seenReads { (seenReads, lastRead) = (now, ContinuousClock.now) }
        }
        let window = lastRead - start
        let floodReads = seenReads - reads
        // One read at once, one per interval after, the real commit's and a trailing one.
        let bound = 3 + Int(window / PostgresBackend.idleReadInterval)
        #expect(floodReads <= bound, "\(floodReads) reads in \(window) for \(sent) forged notices")
        #expect(fixture.reader.value(forKey: "count", as: Int.self) == 1)
        #expect(try fixture.cursorRevision() > revision)
    }
}
