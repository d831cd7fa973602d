import Foundation
import Testing

@Suite("watch")
struct WatchCommandTests {
    /// Starts `stored watch`, waits until it says it is watching, runs `writes` as separate
    /// `stored` processes, and returns what the watcher printed once it exited.
    func watch(_ arguments: [String], while writes: [[String]], cli: StoredProcess) throws -> (Int32, [String]) {
        let watcher = try StoredWatcher(arguments, cli: cli)
        watcher.waitForError("Watching")
        for write in writes {
            let outcome = try cli.run(write)
            #expect(outcome.status == 0, "\(write): \(outcome)")
        }
        return watcher.finish()
    }

    @Test("watch --count 2 sees two writes made by other processes", arguments: storeNames)
    func seesOtherProcesses(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "seed", "0", "--int")
        let (status, lines) = try watch(
            [store, "--count", "2"],
            while: [["write", store, "volume", "0.8", "--double"], ["write", store, "name", "Ada"]], cli: cli)
        #expect(status == 0)
        #expect(lines.sorted() == [#"name: (none) -> "Ada" (external)"#, "volume: (none) -> 0.8 (external)"])
    }

    @Test("watch KEY --json prints JSON lines for that key only", arguments: storeNames)
    func jsonLinesForOneKey(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "volume", "0.5", "--double")
        let (status, lines) = try watch(
            [store, "volume", "--json", "--count", "1"],
            while: [["write", store, "other", "1", "--int"], ["write", store, "volume", "0.8", "--double"]], cli: cli)
        #expect(status == 0)
        #expect(lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(object["key"] as? String == "volume")
        #expect(object["old"] as? Double == 0.5)
        #expect(object["new"] as? Double == 0.8)
        #expect(object["origin"] as? String == "external")
    }
}
