import Foundation
import StoredKitTestSupport
import Testing

/// An SQLite store that another program gave a key named `StoredKit.metadata` (plist files keep
/// StoredKit's own metadata under that name). Before, `export --format binary` (and XML) wrote a
/// plist StoredKit then called corrupt, and the key was dropped or accepted by turns.
@Suite("The reserved key through the CLI")
struct ReservedKeyCommandTests {
    static func storeWithReservedKey(_ cli: StoredProcess) throws {
        try cli.run("write", "prefs.sqlite", "a", "1", "--int")
        _ = try ExternalCommand.run(
            "/usr/bin/sqlite3",
            [cli.path("prefs.sqlite"), "INSERT INTO preferences (key, type, value) VALUES ('StoredKit.metadata', 'int', 7)"])
    }

    @Test("export to a plist refuses the reserved key and writes nothing", arguments: ["xml", "binary"])
    func exportRefuses(format: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try Self.storeWithReservedKey(cli)
        let outcome = try cli.run("export", "prefs.sqlite", "out.plist", "--format", format)
        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.errorOutput.contains("'StoredKit.metadata' is reserved"), "\(outcome)")
        #expect(cli.bytes("out.plist") == nil)
        // The way out it names works, and the export then opens as a store.
        #expect(try cli.run("rename", "prefs.sqlite", "StoredKit.metadata", "metadata").status == 0)
        #expect(try cli.run("export", "prefs.sqlite", "out.plist", "--format", format).status == 0)
        let read = try cli.run("read", "out.plist", "metadata")
        #expect(read.status == 0 && read.stdout.contains("7"), "\(read)")
    }

    @Test("import and convert refuse the reserved key by name; nothing is written")
    func importAndConvertRefuse() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let imported = try cli.run("import", "new.sqlite", "-", input: Data(#"{"StoredKit.metadata": 1, "b": 2}"#.utf8))
        #expect(imported.status == 3, "\(imported)")
        #expect(imported.errorOutput.contains("'StoredKit.metadata'") && imported.errorOutput.contains("reserved"), "\(imported)")
        #expect(try cli.run("keys", "new.sqlite").stdout.isEmpty)
        try Self.storeWithReservedKey(cli)
        for target in ["copy.sqlite", "copy.plist"] {
            let converted = try cli.run("convert", "prefs.sqlite", target)
            #expect(converted.status == 3, "\(target): \(converted)")
            #expect(
                converted.errorOutput.contains("'StoredKit.metadata'") && converted.errorOutput.contains("reserved"),
                "\(converted)")
        }
    }

    @Test("a 10,000-character key is refused by write and import, naming the limit")
    func longKeyRefused() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let key = String(repeating: "k", count: 10_000)
        let written = try cli.run("write", "prefs.sqlite", key, "1", "--int")
        #expect(written.status == 3, "\(written.status) \(written.errorOutput.suffix(300))")
        #expect(written.errorOutput.contains("1024 bytes"))
        let imported = try cli.run("import", "prefs.sqlite", "-", input: Data(#"{"\#(key)": 1}"#.utf8))
        #expect(imported.status == 3 && imported.errorOutput.contains("1024 bytes"))
    }
}
