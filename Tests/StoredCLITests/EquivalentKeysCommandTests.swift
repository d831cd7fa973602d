import Foundation
import StoredKitTestSupport
import Testing

/// The CLI on data with two spellings of one key (`"caf\u{E9}"` and `"cafe\u{301}"`), which
/// Swift takes for one key. Before, `write` through the hidden spelling exited 0 and was lost to
/// every reader, and `import`, `convert` and `export` kept one spelling, dropped the other and exited 0.
@Suite("The CLI on keys that differ only in their Unicode form")
struct EquivalentKeysCommandTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    static func sqliteWithBoth(_ cli: StoredProcess) throws {
        try cli.run("write", "n.sqlite", "a", "1", "--int")
        _ = try ExternalCommand.run(
            "/usr/bin/sqlite3",
            [
                cli.path("n.sqlite"),
                "INSERT INTO preferences (key, type, value) VALUES "
                    + "(CAST(X'63616665CC81' AS TEXT), 'int', 1), (CAST(X'636166C3A9' AS TEXT), 'int', 2)",
            ])
    }

    @Test("write through either spelling is what read shows afterwards")
    func writeIsWhatReadShows() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try Self.sqliteWithBoth(cli)
        for (value, spelling) in [("5", Self.composed), ("6", Self.decomposed)] {
            #expect(try cli.run("write", "n.sqlite", spelling, value, "--int").status == 0)
            for reader in [Self.composed, Self.decomposed] {
                let read = try cli.run("read", "n.sqlite", reader)
                #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == value, "\(read)")
            }
        }
    }

    @Test("export and convert refuse naming both spellings, and write nothing", arguments: ["out.json", "out.plist"])
    func exportAndConvertRefuse(target: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try Self.sqliteWithBoth(cli)
        for arguments in [["export", "n.sqlite", target], ["convert", "n.sqlite", target.replacing(".json", with: ".sqlite")]] {
            let outcome = try cli.run(arguments)
            #expect(outcome.status == 3, "\(arguments): \(outcome)")
            #expect(
                outcome.errorOutput.contains("\"cafe\\u{301}\"") && outcome.errorOutput.contains("\"caf\\u{E9}\""), "\(outcome)")
            #expect(cli.bytes(arguments[2]) == nil)
        }
    }

    @Test("import refuses a JSON or plist file holding both spellings, naming both")
    func importRefuses() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let json = "{\"\(Self.composed)\": 1, \"\(Self.decomposed)\": 2}"
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>\(Self.decomposed)</key><integer>2</integer>\
            <key>\(Self.composed)</key><integer>1</integer></dict></plist>
            """
        for input in [json, plist] {
            let outcome = try cli.run("import", "t.sqlite", "-", input: Data(input.utf8))
            #expect(outcome.status == 3, "\(outcome)")
            #expect(outcome.errorOutput.contains("cafe\\u{301}") && outcome.errorOutput.contains("caf\\u{E9}"), "\(outcome)")
        }
        let keys = cli.bytes("t.sqlite") == nil ? "" : try cli.run("keys", "t.sqlite").stdout
        #expect(keys.isEmpty, "nothing was imported")
    }
}
