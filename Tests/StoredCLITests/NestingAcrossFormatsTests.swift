import Foundation
import Testing

/// One nesting limit for every format: what one store file holds, every other format holds too.
@Suite("the nesting limit across formats")
struct NestingAcrossFormatsTests {
    /// JSON for `{"deep": [[...[7]...]]}` with `depth` arrays.
    static func document(depth: Int) -> String {
        "{\"deep\": " + nested(depth) + "}"
    }

    /// `[[...[7]...]]` with `depth` arrays.
    static func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + "7" + String(repeating: "]", count: depth)
    }

    @Test("a value at the limit (512, Foundation's JSON limit) moves between XML, binary and SQLite stores")
    func atTheLimit() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.write(Self.document(depth: 512), to: "deep.json")
        #expect(try cli.run("import", "a.plist", cli.path("deep.json")).status == 0)
        let toBinary = try cli.run("convert", "a.plist", "b.plist", "--format", "binary")
        #expect(toBinary.status == 0, "\(toBinary)")
        let toSQLite = try cli.run("convert", "b.plist", "c.sqlite")
        #expect(toSQLite.status == 0, "\(toSQLite)")
        let back = try cli.run("export", "c.sqlite", "-", "--format", "json")
        #expect(back.stdout.filter { $0 == "[" }.count == 512)
        for format in ["xml", "binary"] {
            let export = try cli.run("export", "c.sqlite", cli.path("out-\(format).plist"), "--format", format)
            #expect(export.status == 0, "\(export)")
            let reread = try cli.run("export", "out-\(format).plist", "-", "--format", "json")
            #expect(reread.stdout == back.stdout, "\(reread)")
        }
        for store in ["a.plist", "b.plist", "c.sqlite"] {
            #expect(try cli.run("check", store).status == 0)
        }
    }

    @Test("write, read and read-type take a value at the limit", arguments: ["d.plist", "d.sqlite"])
    func writeAndRead(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let write = try cli.run("write", store, "deep", Self.nested(512), "--json")
        #expect(write.status == 0, "\(write)")
        let read = try cli.run("read", store, "deep")
        #expect(read.status == 0, "\(read)")
        // One line per level, the innermost element indented by two spaces per level around it.
        let lines = read.stdout.split(separator: "\n")
        #expect(lines.count == 512)
        #expect(lines.last == Substring(String(repeating: "  ", count: 511) + "- 7"))
        let whole = try cli.run("read", store)
        #expect(whole.status == 0 && whole.stdout.hasPrefix("deep:"), "\(whole)")
        #expect(try cli.run("read-type", store, "deep").stdout.hasPrefix("array"))
        let tooDeep = try cli.run("write", store, "deep", Self.nested(513), "--json")
        #expect(tooDeep.status == 3, "\(tooDeep)")
        #expect(tooDeep.errorOutput.contains("512"), "\(tooDeep)")
    }

    @Test("one level more is refused by name, and nothing is written")
    func beyondTheLimit() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.write(Self.document(depth: 513), to: "deep.json")
        for store in ["a.plist", "a.sqlite"] {
            let outcome = try cli.run("import", store, cli.path("deep.json"))
            #expect(outcome.status == 3, "\(outcome)")
            #expect(outcome.errorOutput.contains("512"), "\(outcome)")
            #expect(!outcome.errorOutput.contains("not valid JSON"), "valid JSON, too deep: \(outcome)")
            #expect(cli.bytes(store) == nil)
        }
    }

    /// An SQLite row another program filled with valid JSON nested deeper than StoredKit reads is
    /// intact (status 3), as a too-deep plist file is; a truncated one is damage (status 4).
    @Test("check calls a too-deep row intact and a truncated one damaged")
    func tooDeepRow() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let rows = [("deep.sqlite", Self.nested(600), Int32(3)), ("broken.sqlite", String(Self.nested(600).prefix(601)), 4)]
        for (store, text, status) in rows {
            #expect(try cli.run("write", store, "deep", "[1]", "--json").status == 0)
            let sqlite3 = URL(fileURLWithPath: "/usr/bin/sqlite3")
            let edit = try Process.run(sqlite3, arguments: [cli.path(store), "UPDATE preferences SET value = '\(text)'"])
            edit.waitUntilExit()
            #expect(edit.terminationStatus == 0)
            let check = try cli.run("check", store)
            #expect(check.status == status, "\(check)")
            #expect(check.errorOutput.contains("intact") == (status == 3), "\(check)")
        }
    }
}
