import Foundation
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
        arguments: ["uid.bplist", "integer-beyond-64-bits.plist", "windows-1252.plist"])
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
