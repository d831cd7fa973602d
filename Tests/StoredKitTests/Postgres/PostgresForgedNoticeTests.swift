import Foundation
import Synchronization
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// Any role that may connect can LISTEN and NOTIFY on channel `storedkit`. With a real second
/// role that has nothing but CONNECT: notices it forges, in every form, never change what a
/// client reads or its revision, nor make it miss a real commit, and a burst of them costs a
/// bounded number of reads; what it hears on the channel names no namespace and carries no key
/// or value.
@Suite(
    "PostgreSQL notices forged or overheard by a role with only CONNECT",
    // Serialized: the overhearing test must not hear the forgeries of the others.
    .serialized, .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresForgedNoticeTests {
    @Test func forgedNoticesChangeNothingAndRealChangesStillArrive() async throws {
        let url = try PostgresTestServer.requireURL()
        let intruder = try Intruder(url: url)
        let namespace = PostgresTestServer.freshNamespace("user:1")
        let writer = try PreferenceStore(
            .postgres(url: url, namespace: namespace, timeout: .seconds(120)), durability: .immediate)
        writer.set("user", forKey: "role")
        let backend = PostgresBackend.postgres(url: url, namespace: namespace, timeout: .seconds(120))
        let reader = try PreferenceStore(backend)
        let seen = Mutex<[String?]>([])
        let observation = reader.observe(StoredKey<String?>("role", default: nil)) { change in
            seen.withLock { $0.append(change.newValue) }
        }
        let admin = try PostgresConnection(address: PostgresAddress(url))
        let token = try #require(
            try admin.query("SELECT notify_token FROM storedkit.namespaces WHERE namespace = $1", [namespace]).first?.first
                ?? nil)
        let revision = backend.state.withLock { $0.revision }
        let forged = #"{"set":{"role":"admin"}}"#
        let payloads: [String] = [
            // The previous version's value-carrying form, and its plain form by name.
            "v2 \(revision + 1) \(revision) \(namespace.utf8.count) \(namespace)\(forged)",
            "\(revision + 1) \(namespace)",
            // This namespace's token, at the right revision, huge ones and nonsense ones.
            "\(revision + 1) \(token)", "\(Int64.max) \(token)", "9223372036854775808 \(token)", "-1 \(token)",
            "0 \(token)", "\(revision) \(token)",
            // Other tokens, and garbage.
            "\(revision + 1) \(UUID().uuidString)", "\(revision + 1) ", "", " ", "x \(token)", "\(revision + 1)\(token)",
            String(repeating: "9", count: 7_000),
        ]
        for n in Int64(0)..<200 {
            let header = "v2 \(revision + 1 + n) \(revision + n) \(namespace.utf8.count)"
            try intruder.notify("\(header) \(namespace)\(forged)")
        }
        for payload in payloads { try intruder.notify(payload) }
        try await Task.sleep(for: .milliseconds(400))

        #expect(reader.value(forKey: "role", as: String.self) == "user")
        #expect(backend.state.withLock { $0.revision } == revision)
        #expect(!seen.withLock { $0 }.contains("admin"))

        // A real commit after the forgeries arrives, and only it.
        writer.set("editor", forKey: "role")
        #expect(await waitUntil(timeout: 90) { reader.value(forKey: "role", as: String.self) == "editor" })
        // Observers are told after the value is in place (outside the store's lock): wait for them too.
        #expect(await waitUntil(timeout: 90) { !seen.withLock { $0 }.isEmpty })
        #expect(seen.withLock { $0 } == ["editor"])
        #expect(try backend.state.withLock { $0.revision } == tableRevision(namespace, admin))
        withExtendedLifetime(observation) {}
    }

    @Test func aBurstOfTenThousandCostsABoundedNumberOfReads() async throws {
        let url = try PostgresTestServer.requireURL()
        let intruder = try Intruder(url: url)
        let namespace = PostgresTestServer.freshNamespace("burst")
        let writer = try PreferenceStore(
            .postgres(url: url, namespace: namespace, timeout: .seconds(120)), durability: .immediate)
        writer.set(0, forKey: "count")
        let backend = PostgresBackend.postgres(url: url, namespace: namespace, timeout: .seconds(120))
        let reader = try PreferenceStore(backend)
        let observation = reader.observe(StoredKey<Int?>("count", default: nil)) { _ in }
        let admin = try PostgresConnection(address: PostgresAddress(url))
        let token = try #require(
            try admin.query("SELECT notify_token FROM storedkit.namespaces WHERE namespace = $1", [namespace]).first?.first
                ?? nil)
        let revision = backend.state.withLock { $0.revision }
        let reads = backend.catchUpReads.load(ordering: .relaxed)
        let start = ContinuousClock.now
        // 10,000 distinct payloads (the server folds identical ones of one transaction): the
        // replayed token at ever higher revisions, interleaved with other tokens.
        try intruder.connection.query(
            """
            SELECT pg_notify('\(PostgresSchema.channel)', CASE WHEN n % 2 = 0 THEN (\(revision) + n)::text || ' ' || $1
                ELSE n::text || ' ' || md5(n::text) END) FROM generate_series(1, 10000) AS n
            """, [token])
        // A real commit after the burst: heard after every forged notice, on the one listener connection.
        writer.set(1, forKey: "count")
        #expect(await waitUntil(timeout: 90) { reader.value(forKey: "count", as: Int.self) == 1 })
        let elapsed = ContinuousClock.now - start
        let burstReads = backend.catchUpReads.load(ordering: .relaxed) - reads
        // One read at once, one per 100 ms after, and the real commit's.
        let bound = 2 + Int(elapsed / PostgresBackend.idleReadInterval) + 1
        #expect(burstReads <= bound, "\(burstReads) reads in \(elapsed) for 10,000 forged notices")
        #expect(backend.state.withLock { $0.revision } == (try tableRevision(namespace, admin)))
        #expect(reader.value(forKey: "count", as: Int.self) == 1)
        withExtendedLifetime(observation) {}
    }

    @Test func theServerCountsNoMoreReadsThanTheBound() async throws {
        // The server's own count: in a database of its own, every statement a client runs is
        // one committed transaction in pg_stat_database (the forger's one statement included).
        let url = try PostgresTestServer.requireURL()
        let admin = try PostgresConnection(address: PostgresAddress(url))
        let database = "storedkit_burst_\(UUID().uuidString.prefix(8).lowercased())"
        try admin.run("CREATE DATABASE \(database)")
        defer { _ = try? admin.run("DROP DATABASE \(database) WITH (FORCE)") }
        let databaseURL = try #require(url.hasSuffix("/postgres") ? String(url.dropLast(8)) + database : nil)
        let namespace = PostgresTestServer.freshNamespace("counted")
        let writer = try PreferenceStore(
            .postgres(url: databaseURL, namespace: namespace, timeout: .seconds(120)), durability: .immediate)
        writer.set(0, forKey: "count")
        let backend = PostgresBackend.postgres(url: databaseURL, namespace: namespace, timeout: .seconds(120))
        let reader = try PreferenceStore(backend)
        let observation = reader.observe(StoredKey<Int?>("count", default: nil)) { _ in }
        let intruder = try Intruder(url: databaseURL)
        let token = try #require(
            try PostgresConnection(address: PostgresAddress(databaseURL))
                .query("SELECT notify_token FROM storedkit.namespaces WHERE namespace = $1", [namespace]).first?.first ?? nil)
        let before = try await settledCommits(database, admin)
        let start = ContinuousClock.now
        try intruder.connection.query(
            "SELECT pg_notify('\(PostgresSchema.channel)', n::text || ' ' || $1) FROM generate_series(1, 10000) AS n", [token])
        let forgedAt = ContinuousClock.now
        // The window: a second after the forger's statement, or longer while the reader is still
        // taking in the burst on a loaded machine (under the full suite the fixed second was too
        // short); its reads have stopped once none came for 2 s, twenty intervals.
        var seenReads = backend.catchUpReads.load(ordering: .relaxed)
        var lastRead = forgedAt
        while ContinuousClock.now - lastRead < .seconds(2) {
            try await Task.sleep(for: .milliseconds(20))
            let now = backend.catchUpReads.load(ordering: .relaxed)
            if now != seenReads { (seenReads, lastRead) = (now, ContinuousClock.now) }
        }
        let elapsed = max(forgedAt + .seconds(1), lastRead) - start
        let after = try await settledCommits(database, admin)
        // The forger's statement is one; the stat query runs in another database. Every read falls
        // in the window, or one interval after it: per client (the writer's store hears the token
        // too), one at once, one per interval, one trailing.
        let reads = after - before - 1
        let bound = 2 * (3 + Int(elapsed / PostgresBackend.idleReadInterval))
        #expect(reads <= bound, "\(reads) server transactions in \(elapsed)")
        // Unthrottled, each notice that arrives while no reload is pending costs one: far more.
        #expect(reads < 100)
        #expect(reader.value(forKey: "count", as: Int.self) == 0)
        withExtendedLifetime((observation, intruder, writer)) {}
    }

    @Test func aListenerWithOnlyConnectHearsNoKeyValueOrNamespace() async throws {
        let url = try PostgresTestServer.requireURL()
        let intruder = try Intruder(url: url)
        // It may not read the tables: what it learns, it learns from the channel.
        #expect(throws: StoreError.self) { try intruder.connection.query("SELECT count(*) FROM storedkit.preferences") }
        try intruder.connection.run("LISTEN \(PostgresSchema.channel)")
        let namespace = PostgresTestServer.freshNamespace("alice@example.com")
        // The backend itself, so that every commit is known to have landed (a store's `set` would
        // keep one pending if the pool, shared with parallel tests, made it wait too long).
        let writer = PostgresBackend.postgres(url: url, namespace: namespace, timeout: .seconds(120))
        _ = try writer.load()
        _ = try writer.commit(BackendChanges(values: ["apiTokenKey": .string("s3cr3t-token-value")]))
        _ = try writer.commit(BackendChanges(values: ["dictKey": .dictionary(["nested": .string("s3cr3t-nested")])]))
        _ = try writer.commit(BackendChanges(values: ["batchKey": .string("s3cr3t-in-a-batch"), "apiTokenKey": nil]))
        // A hand edit: the trigger's payload too.
        let admin = try PostgresConnection(address: PostgresAddress(url))
        try admin.query(
            "UPDATE storedkit.preferences SET string_value = 's3cr3t-by-hand' WHERE namespace = $1 AND key = 'batchKey'",
            [namespace])
        var payloads: [String] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while payloads.count < 4, ContinuousClock.now < deadline {
            _ = intruder.connection.consumeInput()
            payloads += intruder.connection.takeNotifications().map(\.payload)
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(payloads.count >= 4)
        for payload in payloads {
            for secret in ["s3cr3t", "Key", "alice", namespace, "set", "{"] {
                #expect(!payload.contains(secret), "\(payload) names \(secret)")
            }
            #expect(payload.wholeMatch(of: /\d+ [0-9a-f]{32}/) != nil, "\(payload)")
        }
    }

    // MARK: Support

    /// The namespace's revision in the table.
    private func tableRevision(_ namespace: String, _ admin: PostgresConnection) throws -> Int64 {
        let text = try admin.query("SELECT revision FROM storedkit.namespaces WHERE namespace = $1", [namespace]).first?.first
        return (text ?? nil).flatMap { Int64($0) } ?? -1
    }

    /// `database`'s committed transactions once the server's statistics stop moving. An idle
    /// backend reports its counts up to 10 s after its last transaction (PostgreSQL 15's
    /// `PGSTAT_IDLE_INTERVAL`), so a count is settled once it held for longer than that: one that
    /// held 1.5 s could still grow by work done before, and did under the full suite.
    private func settledCommits(_ database: String, _ admin: PostgresConnection) async throws -> Int {
        var last = -1
        for _ in 0..<12 {
            try admin.run("SELECT pg_stat_clear_snapshot()")
            let text = try admin.query("SELECT xact_commit FROM pg_stat_database WHERE datname = $1", [database]).first?.first
            let count = (text ?? nil).flatMap { Int($0) } ?? -1
            if count == last { return count }
            last = count
            try await Task.sleep(for: .milliseconds(10_500))
        }
        return last
    }

    /// A login role with nothing but the CONNECT every role has, and a connection as it.
    final class Intruder {
        let role = "storedkit_intruder_\(UUID().uuidString.prefix(8).lowercased())"
        let connection: PostgresConnection
        private let admin: PostgresConnection

        init(url: String) throws {
            admin = try PostgresConnection(address: PostgresAddress(url))
            try admin.run("CREATE ROLE \(role) LOGIN")
            let roleURL = url.replacingOccurrences(of: "://postgres@", with: "://\(role)@")
            connection = try PostgresConnection(address: PostgresAddress(roleURL))
        }

        deinit {
            connection.rollback()
            _ = try? admin.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'")
            _ = try? admin.run("DROP ROLE IF EXISTS \(role)")
        }

        func notify(_ payload: String) throws {
            try connection.query("SELECT pg_notify($1, $2)", [PostgresSchema.channel, payload])
        }
    }
}
