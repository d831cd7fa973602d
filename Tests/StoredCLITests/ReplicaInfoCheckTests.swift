import Foundation
import StoredKitTestSupport
import Testing

/// `stored info`, `check`, `read` and `watch` on an offline replica's file, made offline by a real
/// process (no server needed): what it mirrors, its outbox, who it is, read without changing it;
/// and an outbox that contradicts itself, reported naming the file and the key.
@Suite("info, check, read and watch on an offline replica")
struct ReplicaInfoCheckTests {
    @Test func infoShowsTheOutboxAndTheIdAndChangesNothing() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let file = cli.path("prefs.replica")
        let id = try ReplicaFixture.offlineWrites(["volume=0.9", "--remove", "theme"], file: file)
        let before = try ReplicaFixture.replicaTables(file)

        let json = try cli.run("info", "prefs.replica", "--json")  // no '/': a replica, not a suite

        #expect(json.status == 0, "\(json)")
        let fields = try ReplicaFixture.json(json)
        #expect(fields["pendingWrites"] as? Int == 2, "\(fields)")
        #expect(fields["replicaID"] as? String == id)
        #expect(fields["oldestPendingWrite"] is String)
        #expect(fields["copiedFrom"] == nil && fields["lastSynced"] == nil && fields["namespace"] == nil, "\(fields)")
        #expect(fields["backend"] as? String == "sqlite" && fields["keyCount"] as? Int == 1)
        let text = try cli.run("info", "prefs.replica")
        #expect(text.stdout.contains("pending writes: 2 (oldest queued "), "\(text)")
        #expect(text.stdout.contains("replica id:     \(id)"), "\(text)")
        #expect(text.stdout.contains("last synced:    never"), "\(text)")
        #expect(text.stdout.contains("copied from:    no (the original)"), "\(text)")
        #expect(try ReplicaFixture.replicaTables(file) == before)
    }

    /// `stored write` and `delete` on a replica write as its app does: stamped and queued, so the
    /// next sync sends them; written as a plain SQLite store, the server would never hear of them.
    @Test func writesToAReplicaAreQueuedInItsOutbox() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let file = cli.path("prefs.replica")
        let id = try ReplicaFixture.offlineWrites(["volume=0.9"], file: file)
        try ReplicaFixture.sqlite(file, "update replica_stamps set queued_at = null")  // as after a sync

        #expect(try cli.run("write", "prefs.replica", "theme", "dark").status == 0)
        #expect(try cli.run("delete", "prefs.replica", "volume").status == 0)

        let queued = try ReplicaFixture.sqlite(
            file, "select key || ' ' || replica_id from replica_stamps where queued_at is not null order by key")
        #expect(queued == "theme \(id)\nvolume \(id)", "\(queued)")
        let fields = try ReplicaFixture.json(try cli.run("info", "prefs.replica", "--json"))
        #expect(fields["pendingWrites"] as? Int == 2, "\(fields)")
    }

    /// A copy keeps its original's id until it opens: `info` says it is a copy, and of which
    /// replica, without giving it an id (which ReplicaFile's own identity check would write).
    @Test func infoTellsACopyWithoutGivingItAnId() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let id = try ReplicaFixture.offlineWrites(["volume=0.9"], file: cli.path("original.replica"))
        // As a backup tool copies it: the file and its write-ahead log, which may hold the latest pages.
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: cli.path("original.replica" + suffix)) {
            try FileManager.default.copyItem(
                atPath: cli.path("original.replica" + suffix), toPath: cli.path("copy.replica" + suffix))
        }
        let before = try ReplicaFixture.replicaTables(cli.path("copy.replica"))

        let fields = try ReplicaFixture.json(try cli.run("info", "copy.replica", "--json"))

        #expect(fields["copiedFrom"] as? String == id, "\(fields)")
        #expect(fields["replicaID"] == nil, "\(fields)")
        #expect(try cli.run("info", "copy.replica").stdout.contains("(none yet: a copy takes its own at its next open)"))
        #expect(try ReplicaFixture.replicaTables(cli.path("copy.replica")) == before, "info gave the copy no id")
        #expect(try ReplicaFixture.json(try cli.run("info", "original.replica", "--json"))["replicaID"] as? String == id)
        // Once the copy opens, it has an id of its own and says which one it came from.
        let own = try ReplicaFixture.offlineWrites(["theme=dark"], file: cli.path("copy.replica"))
        let opened = try ReplicaFixture.json(try cli.run("info", "copy.replica", "--json"))
        #expect(own != id && opened["replicaID"] as? String == own && opened["copiedFrom"] as? String == id, "\(opened)")
    }

    @Test func checkCallsAHealthyReplicaSoundAndReadAndWatchShowItsValues() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try ReplicaFixture.offlineWrites(["volume=0.9", "theme=dark"], file: cli.path("prefs.replica"))

        let check = try cli.run("check", "prefs.replica")

        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("is sound: sqlite replica of a namespace not synchronized yet, 2 pending writes, 2 keys"))
        #expect(try cli.run("read", "prefs.replica", "theme").stdout == "\"dark\"\n")
        let watcher = try StoredWatcher(["prefs.replica", "theme", "--count", "1"], cli: cli)
        watcher.waitForError("Watching")
        try ReplicaFixture.offlineWrites(["theme=light"], file: cli.path("prefs.replica"))
        let (status, lines) = watcher.finish()
        #expect(status == 0 && lines == ["theme: \"dark\" -> \"light\" (external)"], "\(lines)")
    }

    @Test func anOutboxEditedToHoldGarbageIsDamageNamingTheFileAndTheKey() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let file = cli.path("prefs.replica")
        try ReplicaFixture.offlineWrites(["volume=0.9", "theme=dark"], file: file)
        try ReplicaFixture.loosenStamps(file, "UPDATE replica_stamps SET stamp_ms = 'garbage' WHERE key = 'volume'")

        let check = try cli.run("check", "prefs.replica")

        #expect(check.status == 4, "\(check)")
        #expect(check.errorOutput.contains("'\(file)'"), "\(check)")
        #expect(check.errorOutput.contains("key 'volume' (replica_stamps): stamp_ms is text 'garbage'"), "\(check)")
        #expect(check.errorOutput.contains("Nothing was sent"), "\(check)")
        #expect(!check.errorOutput.contains("'theme'"), "\(check)")
        // The sync refuses it before reaching for any server: not 6, though nobody listens there.
        let sync = try cli.run("sync", ReplicaFixture.down, "--replica", "prefs.replica", "--timeout", "1")
        #expect(sync.status == 4 && sync.errorOutput.contains("key 'volume'"), "\(sync)")
    }

    @Test func anOutboxValueThatDoesNotDecodeAndASyncRowWithoutNamespaceAreDamage() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let file = cli.path("prefs.replica")
        try ReplicaFixture.offlineWrites(["volume=0.9"], file: file)
        try ReplicaFixture.sqlite(
            file,
            """
            UPDATE preferences SET type = 'date', value = 'not a date' WHERE key = 'volume';
            INSERT INTO replica_sync (singleton, server, namespace, revision) VALUES (1, 'postgresql://app@db/prefs', '', 3)
            """)

        let check = try cli.run("check", "prefs.replica")

        #expect(check.status == 4, "\(check)")
        #expect(
            check.errorOutput.contains("key 'volume' (replica_stamps): the outbox holds its write, but the value"), "\(check)")
        #expect(check.errorOutput.contains("replica_sync: the sync row names no namespace"), "\(check)")
    }

    @Test func aStampMoreThanADayAheadIsReportedWithStatus3() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let file = cli.path("prefs.replica")
        try ReplicaFixture.offlineWrites(["volume=0.9", "theme=dark"], file: file)
        let twoDaysAhead = Int64((Date().timeIntervalSince1970 + 2 * 86_400) * 1000)
        try ReplicaFixture.sqlite(file, "UPDATE replica_stamps SET stamp_ms = \(twoDaysAhead) WHERE key = 'theme'")

        let check = try cli.run("check", "prefs.replica")

        #expect(check.status == 3, "\(check)")
        #expect(check.errorOutput.contains("key 'theme' (replica_stamps): stamped "), "\(check)")
        #expect(check.errorOutput.contains("more than a day ahead of this machine's clock"), "\(check)")
        #expect(!check.errorOutput.contains("'volume'"), "\(check)")
    }
}
