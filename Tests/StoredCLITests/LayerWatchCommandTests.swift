import Foundation
import StoredKitTestSupport
import Testing

@Suite("watch through layers")
struct LayerWatchCommandTests {
    /// Runs `command` as a second process, as an administrator's shell would.
    func shell(_ command: String, in cli: StoredProcess) throws {
        let (status, _) = try ExternalCommand.run("/bin/sh", ["-c", "cd '\(cli.scratch.path)' && \(command)"])
        #expect(status == 0, "\(command)")
    }

    @Test("an administrator's edit of the forced or defaults file is a change with its layer", arguments: storeNames)
    func layerEditsWithTheirSource(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "forced.plist", "volume", "0.3", "--double")
        try cli.run("write", "a.plist", "theme", "dark")
        try cli.run("write", "new-forced.plist", "volume", "0.1", "--double")
        try cli.run("write", "new-defaults.plist", "theme", "light")
        try cli.run("write", store, "volume", "0.8", "--double")
        let watcher = try StoredWatcher(
            [store, "--forced", "forced.plist", "--defaults", "a.plist", "--count", "3"], cli: cli)
        watcher.waitForError("Watching")
        // Replaced by an atomic rename, as an editor or a configuration tool saves it.
        try shell("cp new-forced.plist forced.tmp && mv forced.tmp forced.plist", in: cli)
        watcher.waitForLines(1)
        // Rewritten in place.
        try shell("cat new-defaults.plist > a.plist", in: cli)
        watcher.waitForLines(2)
        // The user's value of a forced key changes nothing anyone reads: no line.
        #expect(try cli.run("write", store, "volume", "0.9", "--double").status == 0)
        #expect(try cli.run("write", store, "name", "Cy").status == 0)
        let (status, lines) = watcher.finish()
        #expect(status == 0)
        #expect(
            lines == [
                "volume: 0.3 -> 0.1 (external, forced:\(cli.path("forced.plist")))",
                "theme: \"dark\" -> \"light\" (external, defaults:\(cli.path("a.plist")))",
                "name: (none) -> \"Cy\" (external)",  // the user's own value: no layer named
            ])
    }

    /// Each line names the layer of its own change, not the one the key has when the line is
    /// printed (issue 41). The race is forced: a first line of 1 MB cannot be written to the pipe
    /// this test does not read yet, so the watcher is held in it while two changes of one key are
    /// made, in different layers, each seen by the watching store (its diagnostics, on stderr, say so)
    /// before the next is made.
    @Test("two quick changes of a key in different layers: each line names its own layer")
    func eachLineNamesTheLayerOfItsChange() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "a.plist", "volume", "0.5", "--double")
        try cli.run("write", "forced.plist", "other", "1", "--int")
        try cli.run("write", "prefs.plist", "big", "")  // import replaces the store's keys: this one only
        let watcher = try StoredWatcher(
            ["prefs.plist", "--forced", "forced.plist", "--defaults", "a.plist", "--count", "3"], cli: cli)
        watcher.waitForError("Watching")
        let big = String(repeating: "x", count: 1 << 20)
        #expect(try cli.run("import", "prefs.plist", "-", input: Data(#"{"big": "\#(big)"}"#.utf8)).status == 0)
        // The watcher is writing the first line, and stays blocked in it: the pipe holds 64 KiB.
        #expect(watcher.output.fileHandleForReading.readData(ofLength: 5) == Data("big: ".utf8))
        #expect(try cli.run("write", "forced.plist", "volume", "0.3", "--double").status == 0)
        watcher.waitForError("Key 'volume' is now forced")
        #expect(try cli.run("delete", "forced.plist", "volume").status == 0)
        watcher.waitForError("Key 'volume' is no longer forced")
        let (status, lines) = watcher.finish()
        #expect(status == 0)
        #expect(
            Array(lines.dropFirst()) == [
                "volume: 0.5 -> 0.3 (external, forced:\(cli.path("forced.plist")))",
                "volume: 0.3 -> 0.5 (external, defaults:\(cli.path("a.plist")))",
            ])
    }

    /// An app whose plist store does not exist yet reads its layers and sees the file appear: so
    /// does `watch`, which creates nothing. An SQLite file would be created by opening it, so a
    /// watch of a missing one still fails (status 5), as it does with no layer value at all.
    @Test("watch of a plist store that does not exist yet: its layers' changes, then the store's own")
    func watchOfAMissingStore() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "a.plist", "theme", "dark")
        #expect(try cli.run("watch", "prefs.sqlite", "--defaults", "a.plist", "--count", "1").status == 5)
        #expect(try cli.run("watch", "prefs.plist", "--defaults", "none.plist", "--count", "1").status == 5)
        let watcher = try StoredWatcher(["prefs.plist", "--defaults", "a.plist", "--count", "2"], cli: cli)
        watcher.waitForError("Watching")
        #expect(cli.bytes("prefs.plist") == nil, "watching created the store")
        #expect(try cli.run("write", "a.plist", "theme", "light").status == 0)
        watcher.waitForLines(1)
        #expect(try cli.run("write", "prefs.plist", "theme", "blue").status == 0)
        let (status, lines) = watcher.finish()
        #expect(status == 0)
        #expect(
            lines == [
                "theme: \"dark\" -> \"light\" (external, defaults:\(cli.path("a.plist")))",
                "theme: \"light\" -> \"blue\" (external)",
            ])
        #expect(cli.bytes("prefs.sqlite") == nil)
    }

    @Test("a key that stops being forced: the JSON line names the layer it comes from now")
    func unforcedKeyAsJSON() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "forced.plist", "volume", "0.3", "--double")
        try cli.run("write", "forced.plist", "other", "1", "--int")
        try cli.run("write", "prefs.sqlite", "volume", "0.8", "--double")
        let watcher = try StoredWatcher(["prefs.sqlite", "--forced", "forced.plist", "--json", "--count", "1"], cli: cli)
        watcher.waitForError("Watching")
        // Another process removes the key from the forced file (replacing it atomically).
        #expect(try cli.run("delete", "forced.plist", "volume").status == 0)
        let (status, lines) = watcher.finish()
        #expect(status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(object["key"] as? String == "volume")
        #expect(object["old"] as? Double == 0.3)
        #expect(object["new"] as? Double == 0.8)
        #expect(object["origin"] as? String == "external")
        #expect(object["layer"] as? String == "user")
        #expect(object["location"] as? String == cli.path("prefs.sqlite"))
    }
}
