import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

/// Issue 39, "offline writes survive exit and kill -9, and a later process sends them": a process
/// opens a replica with the server out of reach (its relay cut), sets and removes keys, flushes,
/// and exits or is killed right after the flush returned (it synced once before, as a laptop did
/// before the plane). A later process opening the same
/// replica with the server back sends every one of them, with the stamps of their `set`.
@Suite(
    "Offline writes of a replica, sent by a later process", .serialized,
    .enabled(if: PostgresURLs.isEnabled, PostgresURLs.skipMessage))
struct ReplicaOfflineProcessTests {
    @Test(arguments: ["exits", "is killed after its flush"])
    func offlineWritesReachTheServerFromALaterProcess(writer ending: String) async throws {
        let (server, _) = try PostgresURLs.require()
        let folder = try TemporaryDirectory()
        let file = folder.file("prefs.replica")
        let namespace = ReplicaProcess.freshNamespace("offline")
        let relay = try SilentServerProxy(to: server)
        defer { relay.stop() }
        // The server holds a value the offline machine will remove, written by another replica.
        let other = try await ReplicaProcess.run([
            "replica-set", server, namespace, folder.file("other.replica").path, "old=stale", "--sync", "30",
        ])
        #expect(other.status == 0, "\(other.helper.lines)")
        #expect(try ReplicaProcess.serverRows(server, namespace)["old"]?.first?.value == "stale")
        // The offline machine synced once before, so it holds that value to remove.
        let before = try #require(try await ReplicaProcess.dump(relay.url, namespace, file))
        #expect(before.values == ["old": "stale"] && before.pending == 0)

        try relay.cut()
        let killed = ending != "exits"
        // Killed: it goes on trying to reach the server after its flush, until the kill.
        let writer = try HelperProcess(
            ["replica-set", relay.url, namespace, file.path, "theme=dark", "volume=0.8", "note=kept", "--remove", "old"]
                + (killed ? ["--sync", "600"] : []))
        if killed {
            #expect(await writer.waitForLine { $0 == "flushed" }, "\(writer.lines)")
            await writer.killHard()
        } else {
            #expect(await writer.exitStatus() == 0, "\(writer.lines)")
        }
        #expect(writer.lines.contains("flushed"))
        let writerID = try #require(writer.lines.first { $0.hasPrefix("replica ") }).dropFirst("replica ".count)

        // Nothing reached the server; all four wait in the replica's outbox, each with its stamp.
        let rows = try ReplicaProcess.serverRows(server, namespace)
        #expect(rows["theme"] == nil && rows["volume"] == nil && rows["note"] == nil)
        #expect(rows["old"]?.first?.value == "stale")
        let queued = try ReplicaFile(at: file, corruption: .fail).pendingWrites()
        #expect(queued.map(\.key).sorted() == ["note", "old", "theme", "volume"])
        #expect(queued.allSatisfy { $0.replicaID == writerID })

        try relay.heal()
        let later = try #require(try await ReplicaProcess.dump(relay.url, namespace, file))
        #expect(later.pending == 0)
        #expect(later.values == ["theme": "dark", "volume": "0.8", "note": "kept"])
        let sent = try ReplicaProcess.serverRows(server, namespace)
        for write in queued {
            let row = try #require(sent[write.key]?.first, "\(write.key) never reached the server")
            #expect(sent[write.key]?.count == 1)
            #expect(row.value == write.value.map { if case .string(let text) = $0 { text } else { "\($0)" } })
            #expect(
                row.stamp == "\(write.stamp.milliseconds) \(write.stamp.counter) \(writerID)",
                "\(write.key): the server holds \(row), the replica queued \(write.stamp)")
        }
        #expect(sent["old"]?.first?.value == nil, "the offline removal was not sent: \(sent)")
    }

    /// An offline `set` of the value the replica still shows is a change made after the one
    /// elsewhere that it has not seen yet, so it should win; today the store takes a write equal
    /// to what it holds for no write at all (nothing stamped, nothing queued: see `apply` in
    /// PreferenceStore+Writing.swift), and the earlier change from elsewhere wins. Left to the
    /// lead: the fix is in the store's write path, not in the replica.
    @Test func anOfflineSetOfTheValueTheReplicaShowsStillWinsOverAnEarlierChangeElsewhere() async throws {
        let (server, _) = try PostgresURLs.require()
        let folder = try TemporaryDirectory()
        let (laptop, desktop) = (folder.file("laptop.replica"), folder.file("desktop.replica"))
        let namespace = ReplicaProcess.freshNamespace("same-value")
        let relay = try SilentServerProxy(to: server)
        defer { relay.stop() }
        let first = try await ReplicaProcess.run(["replica-set", server, namespace, desktop.path, "theme=dark", "--sync", "30"])
        #expect(first.status == 0, "\(first.helper.lines)")
        #expect(try await ReplicaProcess.dump(relay.url, namespace, laptop)?.values == ["theme": "dark"])
        // The desktop changes it; then the laptop, offline and not knowing, sets it to dark: later.
        let changed = try await ReplicaProcess.run([
            "replica-set", server, namespace, desktop.path, "theme=light", "--sync", "30",
        ])
        #expect(changed.status == 0, "\(changed.helper.lines)")
        try relay.cut()
        let offline = try await ReplicaProcess.run(["replica-set", relay.url, namespace, laptop.path, "theme=dark"])
        #expect(offline.status == 0, "\(offline.helper.lines)")
        try relay.heal()
        let later = try #require(try await ReplicaProcess.dump(relay.url, namespace, laptop))
        let onServer = try ReplicaProcess.serverRows(server, namespace)["theme"]?.first?.value
        #expect(later.values == ["theme": "dark"], "the laptop's later set lost to the desktop's earlier one")
        #expect(onServer == "dark")
    }
}
