import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

/// Issue 39, "a kill -9 in the middle of an upload loses nothing and applies nothing twice": a
/// process dies by SIGKILL inside the upload of a replica's outbox, before its `COMMIT` or after
/// it and before the outbox heard of it (`ReplicaSyncer.testHooks`, installed by the helper's
/// kill options). Meanwhile another machine sets one of the keys again. A later process sends
/// the outbox again: the server then holds each write once, with the stamp of its `set`; the
/// newer write from elsewhere stays; and after a COMMIT that did happen, the second upload
/// changes no row at all (a write applied twice would take the new upload's revision and time,
/// and would put the older value back over the newer one).
@Suite(
    "A replica's process killed inside an upload", .serialized,
    .enabled(if: PostgresURLs.isEnabled, PostgresURLs.skipMessage))
struct ReplicaUploadCrashTests {
    @Test(arguments: ["--kill-before-commit", "--kill-before-acknowledge"])
    func theUploadIsSentAgainAndAppliedOnce(killed hook: String) async throws {
        let (server, _) = try PostgresURLs.require()
        let folder = try TemporaryDirectory()
        let file = folder.file("prefs.replica")
        let namespace = ReplicaProcess.freshNamespace("upload-crash")
        let relay = try SilentServerProxy(to: server)
        defer { relay.stop() }

        // The writes are made offline, so that the upload that dies carries all of them at once
        // (k4 set and removed: a removal of a key the replica holds, which it sends as a tombstone).
        try relay.cut()
        let offline = try await ReplicaProcess.run([
            "replica-set", relay.url, namespace, file.path, "k1=a1", "k2=a2", "k3=a3", "k4=a4", "--remove", "k4",
        ])
        #expect(offline.status == 0, "\(offline.helper.lines)")
        let queued = try ReplicaFile(at: file, corruption: .fail).pendingWrites()
        #expect(queued.map(\.key).sorted() == ["k1", "k2", "k3", "k4"])
        let stampOf = Dictionary(
            queued.map { ($0.key, "\($0.stamp.milliseconds) \($0.stamp.counter) \($0.replicaID)") }, uniquingKeysWith: { $1 })

        // The next process dies inside its first upload.
        try relay.heal()
        let crashed = try await ReplicaProcess.run(["replica-set", relay.url, namespace, file.path, hook])
        #expect(crashed.status == SIGKILL, "\(crashed.helper.lines)")
        #expect(crashed.helper.lines.contains("killing myself \(hook)"), "\(crashed.helper.lines)")
        #expect(
            try ReplicaFile(at: file, corruption: .fail).pendingWrites().count == 4, "the outbox was told of an upload")
        let afterCrash = try ReplicaProcess.serverRows(server, namespace)
        if hook == "--kill-before-commit" {
            #expect(afterCrash.isEmpty, "an upload that never committed left rows: \(afterCrash)")
        } else {
            #expect(afterCrash.mapValues { $0.map(\.stamp) } == stampOf.mapValues { [$0] }, "\(afterCrash)")
            #expect(afterCrash["k4"]?.first?.value == nil && afterCrash["k2"]?.first?.value == "a2")
        }

        // Another machine sets k1 again, later than the crashed upload's write of it.
        let newer = try await ReplicaProcess.run([
            "replica-set", server, namespace, folder.file("other.replica").path, "k1=b1", "--sync", "30",
        ])
        #expect(newer.status == 0, "\(newer.helper.lines)")
        let beforeResend = try ReplicaProcess.serverRows(server, namespace)
        let newerRow = try #require(beforeResend["k1"]?.first)
        #expect(newerRow.value == "b1")
        let revisionBeforeResend = try ReplicaProcess.namespaceRevision(server, namespace)

        // A later process sends the outbox again.
        let later = try #require(try await ReplicaProcess.dump(relay.url, namespace, file))
        #expect(later.pending == 0, "the resent outbox was not emptied")
        #expect(later.values == ["k1": "b1", "k2": "a2", "k3": "a3"], "the replica did not end where the server is")
        #expect(try ReplicaProcess.namespaceRevision(server, namespace) > revisionBeforeResend, "nothing was sent again")

        let final = try ReplicaProcess.serverRows(server, namespace)
        #expect(final.values.allSatisfy { $0.count == 1 })
        #expect(final["k1"] == [newerRow], "the resent older write of k1 replaced the newer one")
        for key in ["k2", "k3", "k4"] {
            let row = try #require(final[key]?.first, "\(key) is not on the server")
            #expect(row.stamp == stampOf[key], "\(key): \(row)")
        }
        #expect(final["k2"]?.first?.value == "a2" && final["k3"]?.first?.value == "a3" && final["k4"]?.first?.value == nil)
        if hook == "--kill-before-acknowledge" {
            // The COMMIT happened: the second upload must leave every row exactly as it was.
            for key in ["k2", "k3", "k4"] {
                #expect(
                    final[key] == afterCrash[key], "\(key) was applied again: \(afterCrash[key] ?? []) -> \(final[key] ?? [])")
            }
        } else {
            // Applied once, by the later upload: every row of it carries that upload's one revision.
            let revisions = Set(["k2", "k3", "k4"].compactMap { final[$0]?.first?.revision })
            #expect(revisions.count == 1 && revisions.first.map { $0 > revisionBeforeResend } == true, "\(final)")
        }
    }
}
