import Foundation
import Testing

/// `stored watch` on a plist file that someone deletes: the removal of every key is printed,
/// as an app observing the store is told, instead of the watcher going quiet.
@Suite("watch a deleted file")
struct WatchDeletedFileTests {
    @Test("watch prints each key's removal when the plist file is deleted")
    func deletionIsPrinted() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "prefs.plist", "volume", "0.8", "--double")
        try cli.run("write", "prefs.plist", "name", "Ada")
        let watcher = try StoredWatcher(["prefs.plist", "--count", "2"], cli: cli)
        watcher.waitForError("Watching")

        try FileManager.default.removeItem(atPath: cli.path("prefs.plist"))

        let (status, lines) = watcher.finish()
        #expect(status == 0)
        #expect(lines.sorted() == [#"name: "Ada" -> (none) (external)"#, "volume: 0.8 -> (none) (external)"])
    }
}
