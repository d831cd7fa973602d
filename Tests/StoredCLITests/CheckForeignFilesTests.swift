import Foundation
import StoredKitTestSupport
import Testing

/// `stored check` on files other programs (or accidents) leave: it says what each one is.
@Suite("check on empty and foreign files")
struct CheckForeignFilesTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "StoredKitTests/ForeignFiles")

    @Test("an empty file is called empty, not sound", arguments: ["prefs.plist", "prefs.sqlite"])
    func emptyFile(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try Data().write(to: URL(fileURLWithPath: cli.path(store)))
        let outcome = try cli.run("check", store)
        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.errorOutput.contains("empty file"))
        #expect(!outcome.stdout.contains("sound"))
        #expect(cli.bytes(store) == Data())
    }

    @Test(
        "a valid file holding what StoredKit cannot read is called intact, not corrupt",
        arguments: [
            "uid.bplist", "integer-beyond-64-bits.plist", "windows-1252.plist", "deep-600.plist", "deep-600.bplist",
        ])
    func unsupportedFile(name: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let original = try Data(contentsOf: Self.corpus.appending(path: name))
        try original.write(to: URL(fileURLWithPath: cli.path("prefs.plist")))
        let outcome = try cli.run("check", "prefs.plist")
        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.errorOutput.contains("intact"))
        #expect(!outcome.errorOutput.contains("corrupt"))
        #expect(cli.bytes("prefs.plist") == original)
    }

    /// Issue 32, item 6: `check` called a plistlib file with a value 200 deep corrupt.
    @Test(
        "a deep file plistlib wrote is sound and reads exactly",
        arguments: ["deep-200.plist", "deep-200.bplist", "deep-512.plist", "deep-512.bplist"])
    func deepFile(name: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let original = try Data(contentsOf: Self.corpus.appending(path: name))
        try original.write(to: URL(fileURLWithPath: cli.path("prefs.plist")))
        let outcome = try cli.run("check", "prefs.plist")
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("sound"))
        let depth = Int(name.dropFirst(5).prefix(3)) ?? 0
        let json = try cli.run("export", "prefs.plist", "-", "--format", "json")
        #expect(json.stdout.filter { $0 == "[" }.count == depth, "\(json)")
        #expect(try cli.run("read", "prefs.plist", "other").stdout == "\"kept\"\n")
        #expect(cli.bytes("prefs.plist") == original)
    }

    @Test(
        "a file both references reject is reported damaged and left alone", arguments: ["real-hex.plist", "bogus-doctype.plist"])
    func damagedFile(name: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let original = try Data(contentsOf: Self.corpus.appending(path: name))
        try original.write(to: URL(fileURLWithPath: cli.path("prefs.plist")))
        let outcome = try cli.run("check", "prefs.plist")
        #expect(outcome.status == 4, "\(outcome)")
        #expect(cli.bytes("prefs.plist") == original)
    }
}

/// The CLI on a StoredKit store restored from `sqlite3 .dump`: refused (status 3) with the way forward.
@Suite("a dump-restored SQLite store")
struct DumpRestoredStoreTests {
    @Test("read and check refuse it without changing it, and say how to restore")
    func refused() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "prefs.sqlite", "a", "1", "--int")
        let dump = Process()
        dump.executableURL = URL(fileURLWithPath: "/bin/sh")
        dump.arguments = ["-c", "sqlite3 \"$0\" .dump | sqlite3 \"$1\"", cli.path("prefs.sqlite"), cli.path("copy.sqlite")]
        try dump.run(killingAfter: Process.safetyNet)
        dump.waitUntilExit()
        let before = cli.bytes("copy.sqlite")
        for command in ["read", "check"] {
            let outcome = try cli.run(command, "copy.sqlite")
            #expect(outcome.status == 3, "\(outcome)")
            #expect(outcome.errorOutput.contains(".backup"), "\(outcome)")
        }
        #expect(cli.bytes("copy.sqlite") == before)
    }
}

/// `stored check` names keys that differ only in Unicode normalisation, as a note: both are kept.
@Suite("check on keys equal up to normalisation")
struct EquivalentKeysCheckTests {
    @Test("an SQLite store with both spellings of a key is sound, with a note naming both")
    func noteNamesBoth() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "prefs.sqlite", "a", "1", "--int")
        _ = try ExternalCommand.run(
            "/usr/bin/sqlite3",
            [
                cli.path("prefs.sqlite"),
                "INSERT INTO preferences (key, type, value) VALUES "
                    + "(CAST(X'63616665CC81' AS TEXT), 'string', 'd'), (CAST(X'636166C3A9' AS TEXT), 'string', 'c')",
            ])
        let outcome = try cli.run("check", "prefs.sqlite")
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("note:"), "\(outcome)")
        #expect(outcome.stdout.contains("\"cafe\\u{301}\"") && outcome.stdout.contains("\"caf\\u{E9}\""), "\(outcome)")
    }
}
