import Foundation
import Testing

/// One nesting limit for every format: what one store file holds, every other format holds too.
@Suite("the nesting limit across formats")
struct NestingAcrossFormatsTests {
    /// JSON for `{"deep": [[...[7]...]]}` with `depth` arrays.
    static func document(depth: Int) -> String {
        "{\"deep\": " + String(repeating: "[", count: depth) + "7" + String(repeating: "]", count: depth) + "}"
    }

    @Test("a value at the limit moves between XML, binary and SQLite stores")
    func atTheLimit() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.write(Self.document(depth: 128), to: "deep.json")
        #expect(try cli.run("import", "a.plist", cli.path("deep.json")).status == 0)
        let toBinary = try cli.run("convert", "a.plist", "b.plist", "--format", "binary")
        #expect(toBinary.status == 0, "\(toBinary)")
        let toSQLite = try cli.run("convert", "b.plist", "c.sqlite")
        #expect(toSQLite.status == 0, "\(toSQLite)")
        let back = try cli.run("export", "c.sqlite", "-", "--format", "json")
        #expect(back.stdout.filter { $0 == "[" }.count == 128)
    }

    @Test("one level more is refused by name, and nothing is written")
    func beyondTheLimit() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.write(Self.document(depth: 129), to: "deep.json")
        for store in ["a.plist", "a.sqlite"] {
            let outcome = try cli.run("import", store, cli.path("deep.json"))
            #expect(outcome.status == 3, "\(outcome)")
            #expect(outcome.errorOutput.contains("128"), "\(outcome)")
            #expect(!outcome.errorOutput.contains("not valid JSON"), "valid JSON, too deep: \(outcome)")
            #expect(cli.bytes(store) == nil)
        }
    }
}
