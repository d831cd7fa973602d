import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

@Suite("kill -9 while writing", .serialized)
struct CrashTests {
    /// A child writes 1, 2, 3 ... and prints each value once it is acknowledged (flushed, or an
    /// immediate write returned). After SIGKILL at a random moment the file must open cleanly and
    /// hold the last acknowledged value or the one after it.
    @Test(arguments: storeFileNames, [Durability.deferred, .immediate])
    func killedWriterLosesNoAcknowledgedWrite(fileName: String, durability: Durability) async throws {
        for trial in 0..<3 {
            let folder = try TemporaryDirectory()
            let url = folder.file(fileName)
            let writer = try HelperProcess(
                ["write-loop", url.path],
                environment: ["STORED_DURABILITY": durability == .immediate ? "immediate" : "deferred"]
            )
            #expect(await writer.waitForLine { Int($0) ?? 0 >= 3 + trial })
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
            await writer.killHard()
            let acknowledged = writer.lines.compactMap { Int($0) }.max() ?? 0

            let reopened = try PreferenceStore(fileAt: url, corruption: .fail)
            let stored = try #require(reopened.value(forKey: "n", as: Int.self))
            #expect(
                stored == acknowledged || stored == acknowledged + 1,
                "trial \(trial): stored \(stored), acknowledged \(acknowledged)")
            reopened.set(0, forKey: "after")
            try reopened.flush()
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
                .filter { $0.contains(".tmp-") || $0.contains("corrupt") }
            #expect(leftovers.isEmpty, "temporary or quarantined files left: \(leftovers)")
        }
    }
}

@Suite("Normal exit")
struct ExitTests {
    /// UserDefaults on Linux saves nothing unless told; a StoredKit write lands even when the
    /// program just exits.
    @Test(arguments: storeFileNames)
    func deferredWriteIsSavedAtNormalExit(fileName: String) async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file(fileName)
        let child = try HelperProcess(["set-and-exit", url.path, "greeting", "bye"])
        #expect(await child.exitStatus() == 0)
        let store = try PreferenceStore(fileAt: url)
        #expect(store.value(forKey: "greeting", as: String.self) == "bye")
    }
}
