import Foundation
import Observation
import StoredKitTestSupport
import Synchronization
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// Replicas of one namespace on the test server (``ReplicatedBackend``): each in its own SQLite
/// file with its own clock, synchronized through the server. The change made last (by the stamp
/// taken at the `set`) wins, whatever order the replicas reach the server in.
@Suite(
    "PostgreSQL replicas: the change made last wins",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct ReplicatedBackendTests {
    static let day: Int64 = 86_400_000
    /// Nothing listens on the port: a server that is down.
    static let down = "postgresql://postgres@127.0.0.1:9/postgres?connect_timeout=1"

    /// Replicas of one fresh namespace, each in its own file of one temporary directory.
    struct Replicas {
        let directory: TemporaryDirectory
        let url: String
        let namespace = PostgresTestServer.freshNamespace("replica")

        /// Replicas on the test server's database, or on `url`'s.
        init(url: String? = nil) throws {
            directory = try TemporaryDirectory()
            self.url = try url ?? PostgresTestServer.requireURL()
        }

        /// A store on the replica `name`, whose clock reads `clock` (the wall clock when nil).
        func store(
            _ name: String, clock: ManualWallClock? = nil, url: String? = nil, migrations: [Migration] = []
        ) throws -> PreferenceStore {
            let file = directory.url.appending(path: "\(name).replica")
            let replica = ReplicaFile(
                at: file, clock: clock.map { HybridLogicalClock(physical: $0.read) } ?? HybridLogicalClock())
            return try PreferenceStore(
                ReplicatedBackend(
                    url: url ?? self.url, namespace: namespace, replica: replica, replicaURL: file, timeout: .seconds(5),
                    maximumClockSkew: .seconds(60)), migrations: migrations)
        }

        /// What the server's table holds for `key` (the text of its value), nil when no row.
        func serverValue(_ key: String) throws -> String? {
            let connection = try PostgresConnection(address: PostgresAddress(url))
            return try connection.query(
                "SELECT coalesce(string_value, int_value::text, double_value::text) FROM storedkit.preferences "
                    + "WHERE namespace = $1 AND key = $2", [namespace, key]
            ).first?.first ?? nil
        }
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    @Test func aWriteReachesTheServerAndAnotherReplicaAsAnExternalChange() async throws {
        let replicas = try Replicas()
        let a = try replicas.store("a")
        let b = try replicas.store("b")
        let heard = Mutex<[Change]>([])
        let token = b.observe("volume") { change in heard.withLock { $0.append(change) } }
        defer { token.cancel() }
        a.set(0.8, forKey: "volume")
        try await a.synchronize(timeout: .seconds(10))
        #expect(try replicas.serverValue("volume") == "0.8")
        #expect(a.syncState?.pendingWrites == 0)
        #expect(a.syncState?.isConnected == true)
        #expect(a.syncState?.lastSynced != nil)
        // b never asks: the server's notice wakes its syncer, which catches up and tells the store.
        try await eventually { b.value(forKey: "volume", as: Double.self) == 0.8 }
        try await eventually { !heard.withLock { $0 }.isEmpty }
        #expect(heard.withLock { $0 }.allSatisfy { $0.origin == .external })
    }

    @Test func theWeekOfflineMachinesOlderWriteLosesThoughItArrivesLast() async throws {
        let replicas = try Replicas()
        // The machine that was away made its change a week ago, with no server in reach, and quit.
        do {
            let away = try replicas.store("away", clock: ManualWallClock(Self.now() - 7 * Self.day), url: Self.down)
            away.set("from a week ago", forKey: "theme")
            try away.flush()
        }
        let here = try replicas.store("here")
        here.set("from today", forKey: "theme")
        try await here.synchronize(timeout: .seconds(10))
        // Now the away machine comes back, and sends its older write after the newer one.
        let away = try replicas.store("away")
        #expect(away.value(forKey: "theme", as: String.self) == "from a week ago")
        #expect(away.syncState?.pendingWrites == 1)
        try await away.synchronize(timeout: .seconds(10))
        #expect(try replicas.serverValue("theme") == "from today")
        try await eventually { away.value(forKey: "theme", as: String.self) == "from today" }
        try await eventually {
            away.recentEvents.contains {
                if case .lostToLaterWrite("theme", .string("from today")) = $0 { true } else { false }
            }
        }
        #expect(away.syncState?.pendingWrites == 0, "the write that lost is not retried")
    }

    @Test func aChangeMadeAfterSeeingAnotherWinsThoughItsClockIsADayBehind() async throws {
        let replicas = try Replicas()
        let ahead = try replicas.store("ahead", clock: ManualWallClock(Self.now() + Self.day))
        let behind = try replicas.store("behind", clock: ManualWallClock(Self.now() - Self.day))
        ahead.set(1, forKey: "count")
        try await ahead.synchronize(timeout: .seconds(10))
        try await behind.synchronize(timeout: .seconds(10))
        try await eventually { behind.value(forKey: "count", as: Int.self) == 1 }
        // Seen, then changed: a day behind by its clock, but after by the stamp.
        behind.set(2, forKey: "count")
        try await behind.synchronize(timeout: .seconds(10))
        try await ahead.synchronize(timeout: .seconds(10))
        #expect(try replicas.serverValue("count") == "2")
        try await eventually { ahead.value(forKey: "count", as: Int.self) == 2 }
    }

    @Test func aRemovalAndASetConvergeInBothOrders() async throws {
        let replicas = try Replicas()
        let early = ManualWallClock(Self.now() - 60_000)
        let a = try replicas.store("a", clock: early)
        let b = try replicas.store("b")
        // The removal is later than the set, and arrives first.
        b.set(5, forKey: "first")
        try await b.synchronize(timeout: .seconds(10))
        b.removeValue(forKey: "first")
        a.set(1, forKey: "first")  // made a minute earlier, by a's clock
        try await b.synchronize(timeout: .seconds(10))
        try await a.synchronize(timeout: .seconds(10))
        try await b.synchronize(timeout: .seconds(10))
        #expect(try replicas.serverValue("first") == nil)
        try await eventually { a.value(forKey: "first", as: Int.self) == nil }
        try await eventually { b.value(forKey: "first", as: Int.self) == nil }
        // Set, removed, set again: the last set wins on both.
        a.removeValue(forKey: "second")
        try await a.synchronize(timeout: .seconds(10))
        b.set(3, forKey: "second")
        try await b.synchronize(timeout: .seconds(10))
        try await a.synchronize(timeout: .seconds(10))
        #expect(try replicas.serverValue("second") == "3")
        try await eventually { a.value(forKey: "second", as: Int.self) == 3 }
    }

    @Test func aMachineThatOnlyReadDefaultsJoinsWithoutOverwritingAnything() async throws {
        let replicas = try Replicas()
        let first = try replicas.store("first")
        first.set("dark", forKey: "theme")
        first.set(0.3, forKey: "volume")
        try await first.synchronize(timeout: .seconds(10))
        let connection = try PostgresConnection(address: PostgresAddress(replicas.url))
        let revision = "SELECT revision FROM storedkit.namespaces WHERE namespace = $1"
        let before = try connection.query(revision, [replicas.namespace])

        let fresh = try replicas.store("fresh")
        fresh.register(defaults: ["theme": "light", "volume": 1.0, "font": "serif"])
        #expect(fresh.value(forKey: "font", as: String.self) == "serif")
        try await fresh.synchronize(timeout: .seconds(10))
        #expect(try connection.query(revision, [replicas.namespace]) == before, "nothing was sent")
        try await eventually { fresh.value(forKey: "theme", as: String.self) == "dark" }
        #expect(fresh.value(forKey: "volume", as: Double.self) == 0.3)
        #expect(fresh.syncState?.pendingWrites == 0)
    }

    @Test func aFirstOpenWithoutServerOpensEmptyKnowsItNeverSyncedAndKeepsItsWrites() async throws {
        let replicas = try Replicas()
        let store = try replicas.store("offline", url: Self.down)
        #expect(store.keys.isEmpty)
        #expect(store.syncState?.lastSynced == nil)
        store.set("kept", forKey: "note")
        try store.flush()
        await #expect {
            try await store.synchronize(timeout: .milliseconds(1_500))
        } throws: { error in
            guard case StoreError.notSynchronized(_, let pending, _)? = error as? StoreError else { return false }
            return pending == 1
        }
        #expect(store.syncState?.isConnected == false)
        #expect(store.syncState?.pendingWrites == 1)
        #expect(store.value(forKey: "note", as: String.self) == "kept")
    }

    @Test func aKeyRemovedWhileTheReplicaWasAwayLongerThanTombstonesAreKeptGoesToo() async throws {
        let replicas = try Replicas()
        do {
            let away = try replicas.store("away")
            away.set(1, forKey: "gone")
            away.set(2, forKey: "kept")
            try await away.synchronize(timeout: .seconds(10))
        }
        // While it is away, another machine removes the key, and the tombstone is pruned.
        let pruner = PostgresBackend(url: replicas.url, namespace: replicas.namespace, tombstoneRetention: 0, pruneEvery: 1)
        _ = try pruner.load()
        _ = try pruner.commit(BackendChanges(values: ["gone": nil]))
        _ = try pruner.commit(BackendChanges(values: ["new": .int(3)]))
        let connection = try PostgresConnection(address: PostgresAddress(replicas.url))
        let tombstones = try connection.query(
            "SELECT count(*) FROM storedkit.removed_keys WHERE namespace = $1", [replicas.namespace])
        #expect(tombstones.first?.first == "0", "the tombstone was pruned")

        let back = try replicas.store("away")
        #expect(back.value(forKey: "gone", as: Int.self) == 1, "the replica serves what it last knew")
        back.set(4, forKey: "written since")
        try await back.synchronize(timeout: .seconds(10))
        try await eventually { back.value(forKey: "gone", as: Int.self) == nil }
        #expect(back.value(forKey: "kept", as: Int.self) == 2)
        #expect(back.value(forKey: "new", as: Int.self) == 3)
        #expect(try replicas.serverValue("written since") == "4", "a write waiting in the outbox is not forgotten")
    }

    @Test func syncStateIsObservable() async throws {
        let replicas = try Replicas()
        let store = try replicas.store("observed")
        try await store.synchronize(timeout: .seconds(10))
        let told = Mutex(0)
        func track() {
            withObservationTracking {
                _ = store.syncState
            } onChange: {
                told.withLock { $0 += 1 }
            }
        }
        track()
        store.set(1, forKey: "a")
        try store.flush()
        try await store.synchronize(timeout: .seconds(10))
        try await eventually { told.withLock { $0 } > 0 }
        #expect(store.syncState == SyncState(pendingWrites: 0, lastSynced: store.syncState?.lastSynced, isConnected: true))
        // A store without a replica has no sync state, and synchronizing it only flushes.
        let plain = PreferenceStore.inMemory()
        #expect(plain.syncState == nil)
        try await plain.synchronize()
    }

    @Test func aMergeMadeBeforeTheStoreWatchesIsAnnouncedWhenItStarts() async throws {
        let replicas = try Replicas()
        let writer = try replicas.store("writer")
        writer.set(1, forKey: "count")
        try await writer.synchronize(timeout: .seconds(10))
        // A store loads, then starts watching; on a busy machine the syncer's first round can
        // merge in between, and the store's snapshot is then older than the file.
        let file = replicas.directory.url.appending(path: "late.replica")
        let backend = ReplicatedBackend(
            url: replicas.url, namespace: replicas.namespace, replica: ReplicaFile(at: file), replicaURL: file,
            timeout: .seconds(5), maximumClockSkew: .seconds(60))
        #expect(try backend.load().values["count"] == nil)
        try await eventually { (try? backend.replica.load().values["count"]) == .int(1) }
        let told = Atomic(0)
        try backend.startWatching { told.add(1, ordering: .relaxed) }
        defer { backend.stopWatching() }
        try await eventually { told.load(ordering: .relaxed) > 0 }
    }

    @Test func anObserverOfAMergeMayWriteAndFlushTheStoreThatHeardIt() async throws {
        let replicas = try Replicas()
        let a = try replicas.store("a")
        let b = try replicas.store("b")
        // b's observer hears a's change on b's syncer queue, where the store loaded the merge, and
        // answers at once: its write and flush take the store's locks that the load released, and
        // its upload is a round that queues behind the one still running.
        let flushFailures = Atomic(0)
        let token = b.observe("question") { change in
            guard change.origin == .external, case .string(let question)? = change.newValue else { return }
            b.set("answer to \(question)", forKey: "answer")
            do { try b.flush() } catch { flushFailures.add(1, ordering: .relaxed) }
        }
        defer { token.cancel() }
        a.set("one", forKey: "question")
        try await a.synchronize(timeout: .seconds(10))
        try await eventually { (try? replicas.serverValue("answer")) == "answer to one" }
        try await eventually { a.value(forKey: "answer", as: String.self) == "answer to one" }
        #expect(flushFailures.load(ordering: .relaxed) == 0)
    }

    @Test func aCopiedReplicaTakesItsOwnIdAndBothWritesArrive() async throws {
        let replicas = try Replicas()
        let original = try replicas.store("original")
        original.set("one", forKey: "a")
        try await original.synchronize(timeout: .seconds(10))
        let originalID = try #require(try (original.backend as? ReplicatedBackend)?.replica.currentIdentity())
        // As a backup copies it: the file and its write-ahead log.
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(
                at: replicas.directory.url.appending(path: "original.replica" + suffix),
                to: replicas.directory.url.appending(path: "copy.replica" + suffix))
        }
        let copy = try replicas.store("copy")
        let copyID = try #require(try (copy.backend as? ReplicatedBackend)?.replica.currentIdentity())
        #expect(copyID.replicaID != originalID.replicaID)
        #expect(copyID.copiedFrom == originalID.replicaID)
        copy.set("from the copy", forKey: "b")
        original.set("from the original", forKey: "c")
        try await copy.synchronize(timeout: .seconds(10))
        try await original.synchronize(timeout: .seconds(10))
        try await copy.synchronize(timeout: .seconds(10))
        #expect(try replicas.serverValue("b") == "from the copy")
        #expect(try replicas.serverValue("c") == "from the original")
        try await eventually { copy.value(forKey: "c", as: String.self) == "from the original" }
    }
}

/// Waits until `condition` holds, up to ten seconds: what a background thread does lands soon,
/// not at once. Fails the test when it never does.
func eventually(
    _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("the condition never held", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// Writes a replica accepted offline that the server refuses when they arrive.
@Suite(
    "PostgreSQL replicas: a write refused after the fact",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct ReplicaRefusalTests {
    @Test func aRefusedOfflineWriteIsReportedAndRevertedAloneAndNotRetried() async throws {
        // A database of its own: the administrator's check below takes a lock no other test may wait for.
        let database = try PostgresReadOnlyRoleTests.ReadOnlyDatabase()
        defer { database.drop() }
        let replicas = try ReplicatedBackendTests.Replicas(url: database.writerURL)
        let connection = try PostgresConnection(address: PostgresAddress(replicas.url))
        let other = try replicas.store("other")
        other.set("the server's", forKey: "forbidden")
        try await other.synchronize(timeout: .seconds(10))
        // Offline, the replica takes both writes.
        do {
            let offline = try replicas.store("offline", url: ReplicatedBackendTests.down)
            offline.set("mine", forKey: "forbidden")
            offline.set(1, forKey: "allowed")
            try offline.flush()
        }
        // Meanwhile an administrator's check refuses writes of that key in this namespace.
        let constraint = "storedkit_test_\(UUID().uuidString.prefix(8).lowercased())"
        try connection.run(
            "ALTER TABLE storedkit.preferences ADD CONSTRAINT \(constraint) CHECK (namespace <> "
                + "\(PostgresSetup.literal(replicas.namespace)) OR key <> 'forbidden' OR string_value = 'the server''s')")

        let back = try replicas.store("offline")
        #expect(back.value(forKey: "forbidden", as: String.self) == "mine")
        try await back.synchronize(timeout: .seconds(10))
        #expect(try replicas.serverValue("allowed") == "1", "the rest of the batch was committed")
        #expect(try replicas.serverValue("forbidden") == "the server's")
        try await eventually { back.value(forKey: "forbidden", as: String.self) == "the server's" }
        #expect(back.value(forKey: "allowed", as: Int.self) == 1)
        try await eventually {
            back.recentEvents.contains { if case .refusedByServer("forbidden", _, _) = $0 { true } else { false } }
        }
        #expect(back.syncState?.pendingWrites == 0)
        // Not retried: another round sends nothing, so the namespace's revision stays.
        let revision = "SELECT revision FROM storedkit.namespaces WHERE namespace = $1"
        let before = try connection.query(revision, [replicas.namespace])
        try await back.synchronize(timeout: .seconds(10))
        #expect(try connection.query(revision, [replicas.namespace]) == before)
    }
}

extension ReplicaRefusalTests {
    /// A replica of a role granted `SELECT` alone: what it wrote offline is refused when it
    /// arrives, key by key, and each key goes back to the server's value (a key the server never
    /// held goes away); nothing stays queued.
    @Test func writesOfAReadOnlyRoleAreRefusedAndRevertedOnArrival() async throws {
        let database = try PostgresReadOnlyRoleTests.ReadOnlyDatabase()
        defer { database.drop() }
        let directory = try TemporaryDirectory()
        let namespace = PostgresTestServer.freshNamespace("read-only-replica")
        let writer = try PreferenceStore(.postgres(url: database.writerURL, namespace: namespace), durability: .immediate)
        writer.set(0.5, forKey: "volume")
        let file = directory.url.appending(path: "reader.replica")
        do {
            let offline = try PreferenceStore(
                .postgres(url: ReplicatedBackendTests.down, namespace: namespace, replica: file, timeout: .seconds(1)))
            offline.set(0.1, forKey: "volume")
            offline.set("x", forKey: "new")
            try offline.flush()
        }
        let reader = try PreferenceStore(.postgres(url: database.readerURL, namespace: namespace, replica: file))
        try await reader.synchronize(timeout: .seconds(10))
        try await eventually { reader.value(forKey: "volume", as: Double.self) == 0.5 }
        try await eventually { reader.value(forKey: "new", as: String.self) == nil }
        let refused = reader.recentEvents.compactMap { event -> String? in
            if case .refusedByServer(let key, _, _) = event { key } else { nil }
        }
        #expect(refused.sorted() == ["new", "volume"])
        #expect(reader.syncState?.pendingWrites == 0)
        #expect(writer.value(forKey: "volume", as: Double.self) == 0.5)
    }
}

/// Migrations over replicas of one namespace: each replica's open migrates its own copy (offline
/// too), and the namespace's data is migrated at most once — by whichever replica reaches the
/// server first with it; the others take its values.
@Suite(
    "PostgreSQL replicas: migrations run at most once on the namespace's data",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct ReplicaMigrationTests {
    /// Version 1 renames `tabs` to `sidebar` and adds 10 to `count`: run twice on the same data,
    /// the count would show it.
    static let migrations = [
        Migration(version: 1, "sidebar and count") { context in
            try context.renameKey("tabs", to: "sidebar")
            if case .int(let count)? = context.storedValue(forKey: "count") {
                context.setStoredValue(.int(count + 10), forKey: "count")
            }
        }
    ]

    /// Two replicas that both hold the data of version 0, synchronized.
    static func twoReplicasOfVersionZero() async throws -> ReplicatedBackendTests.Replicas {
        let replicas = try ReplicatedBackendTests.Replicas()
        let first = try replicas.store("first")
        first.set("home,mail", forKey: "tabs")
        first.set(1, forKey: "count")
        try await first.synchronize(timeout: .seconds(10))
        let second = try replicas.store("second")
        try await second.synchronize(timeout: .seconds(10))
        try await eventually { second.value(forKey: "count", as: Int.self) == 1 }
        return replicas
    }

    @Test func aReplicaThatMigratesAfterAnotherTakesItsValuesAndKeepsLaterChanges() async throws {
        let replicas = try await Self.twoReplicasOfVersionZero()
        // The first migrates and sends it; then its user changes the count.
        let first = try replicas.store("first", migrations: Self.migrations)
        #expect(first.value(forKey: "count", as: Int.self) == 11)
        try await first.synchronize(timeout: .seconds(10))
        first.set(50, forKey: "count")
        try await first.synchronize(timeout: .seconds(10))
        // The second, offline, opens with the migration pending: it serves migrated values at once.
        let second = try replicas.store("second", url: ReplicatedBackendTests.down, migrations: Self.migrations)
        #expect(second.value(forKey: "sidebar", as: String.self) == "home,mail")
        #expect(second.value(forKey: "count", as: Int.self) == 11)
        second.set("dark", forKey: "theme")  // a change of its own, made after migrating
        try second.flush()
        // Back online: its migration is not applied again, and the later change stands.
        let back = try replicas.store("second", migrations: Self.migrations)
        try await back.synchronize(timeout: .seconds(10))
        try await eventually { back.value(forKey: "count", as: Int.self) == 50 }
        #expect(try replicas.serverValue("count") == "50")
        #expect(try replicas.serverValue("sidebar") == "home,mail")
        #expect(try replicas.serverValue("tabs") == nil)
        #expect(try replicas.serverValue("theme") == "dark")
        #expect(back.schemaVersion == 1)
    }

    @Test func aReplicaThatMigratesFirstOfflineMigratesTheNamespaceForTheOthers() async throws {
        let replicas = try await Self.twoReplicasOfVersionZero()
        do {
            let first = try replicas.store("first", url: ReplicatedBackendTests.down, migrations: Self.migrations)
            #expect(first.value(forKey: "count", as: Int.self) == 11)
        }
        let first = try replicas.store("first", migrations: Self.migrations)
        try await first.synchronize(timeout: .seconds(10))
        #expect(try replicas.serverValue("count") == "11")
        let connection = try PostgresConnection(address: PostgresAddress(replicas.url))
        let version = try connection.query(
            "SELECT schema_version FROM storedkit.namespaces WHERE namespace = $1", [replicas.namespace])
        #expect(version.first?.first == "1")
        // The second synchronizes before opening with the new version: nothing is left to migrate.
        do {
            let second = try replicas.store("second")
            try await second.synchronize(timeout: .seconds(10))
            try await eventually { second.schemaVersion == 1 }
        }
        let second = try replicas.store("second", migrations: Self.migrations)
        #expect(second.value(forKey: "count", as: Int.self) == 11, "not migrated twice")
        #expect(second.value(forKey: "sidebar", as: String.self) == "home,mail")
        try await second.synchronize(timeout: .seconds(10))
        #expect(try replicas.serverValue("count") == "11")
    }

    @Test func aValueAMigrationMovedKeepsItsStampAndLosesToALaterChange() async throws {
        let replicas = try await Self.twoReplicasOfVersionZero()
        // The first changes the value under its new key; the second, offline, then migrates its own
        // copy, moving the older "tabs" there.
        let first = try replicas.store("first")
        first.set("home,mail,news", forKey: "sidebar")  // a later change, under the new key
        try await first.synchronize(timeout: .seconds(10))
        do {
            let second = try replicas.store("second", url: ReplicatedBackendTests.down, migrations: Self.migrations)
            #expect(second.value(forKey: "sidebar", as: String.self) == "home,mail")
        }
        // Its migration reaches the server first (the namespace is at version 0): the moved value
        // keeps the stamp of "tabs", older than the change made since, which stands.
        let back = try replicas.store("second", migrations: Self.migrations)
        try await back.synchronize(timeout: .seconds(10))
        #expect(try replicas.serverValue("sidebar") == "home,mail,news")
        try await eventually { back.value(forKey: "sidebar", as: String.self) == "home,mail,news" }
    }
}
