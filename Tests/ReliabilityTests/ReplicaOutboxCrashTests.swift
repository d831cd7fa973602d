import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

/// The offline replica's outbox shares each value's transaction, so a write a process acknowledged
/// (flushed, or an immediate write returned) is queued for the server in the file even after kill -9,
/// and a later process finds it there with its value and the stamp of its `set`.
@Suite("Replica outbox after kill -9 and exit", .serialized)
struct ReplicaOutboxCrashTests {
    @Test(arguments: [Durability.deferred, .immediate])
    func aKilledWritersAcknowledgedWritesAreAllStillQueued(durability: Durability) async throws {
        for trial in 0..<3 {
            let folder = try TemporaryDirectory()
            let url = folder.file("replica.sqlite")
            let writer = try HelperProcess(
                ["write-loop", url.path, "keys"],
                environment: ["STORED_REPLICA": "1", "STORED_DURABILITY": durability == .immediate ? "immediate" : "deferred"])
            #expect(await writer.waitForLine { Int($0) ?? 0 >= 5 + trial })
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
            await writer.killHard()
            let acknowledged = writer.lines.compactMap { Int($0) }.max() ?? 0

            let later = ReplicaFile(at: url, corruption: .fail)
            // Everything queued, however far the writer got before the kill landed (on a busy
            // machine, over 100,000 writes), and one more to see a write it made but did not confirm.
            let queued = try later.pendingWrites(limit: acknowledged + 2)
            let byKey = Dictionary(queued.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            for number in 1...acknowledged {
                #expect(byKey["k\(number)"]?.value == .int(Int64(number)), "trial \(trial): k\(number) not queued")
            }
            #expect(queued.count <= acknowledged + 1, "trial \(trial): \(queued.count) queued, \(acknowledged) acknowledged")
            // In the order they were made: k1, k2, ... each stamped above the one before.
            let numbers = queued.compactMap { Int($0.key.dropFirst()) }
            #expect(numbers == numbers.sorted() && Set(queued.map(\.stamp)).count == queued.count, "trial \(trial)")
            #expect(Set(queued.map(\.replicaID)).count == 1)
        }
    }

    @Test func aDeferredWriteIsQueuedAtNormalExit() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("replica.sqlite")
        let child = try HelperProcess(["set-and-exit", url.path, "greeting", "bye"], environment: ["STORED_REPLICA": "1"])
        #expect(await child.exitStatus() == 0)
        let queued = try ReplicaFile(at: url, corruption: .fail).pendingWrites()
        #expect(queued.map(\.key) == ["greeting"])
        #expect(queued.first?.value == .string("bye"))
    }
}
