import Foundation
import Testing

@Suite("export, import and convert")
struct TransferCommandTests {
    /// Every kind of value, including those plain JSON cannot express exactly.
    static let richDocument = #"""
        {
          "bool": true, "int": -42, "big": 18446744073709551615, "min": -9223372036854775808,
          "real": 0.1, "negativeZero": -0.0, "tiny": 1e-05, "whole": 2.0,
          "nan": {"$double": "nan"}, "infinity": {"$double": "-inf"},
          "text": "line\nbreak \"quoted\" \u00fcn\u00efc\u00f8d\u00e9 \ud83c\udf89", "empty": "",
          "data": {"$data": "AAEC/w=="}, "emptyData": {"$data": ""},
          "date": {"$date": "2024-05-01T10:00:00Z"}, "oldDate": {"$date": "1969-07-20T20:17:40Z"},
          "nested": {"list": [1, 2.5, "three", [], {}], "flags": {"on": false}},
          "tagLike": {"$$date": 1},
          "key with spaces": 1
        }
        """#

    static let otherFormat = ["prefs.plist": "other.sqlite", "prefs.sqlite": "other.plist"]

    @Test("export then import into an empty store of the other format gives an equal store", arguments: storeNames)
    func exportImportAcrossFormats(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let other = try #require(Self.otherFormat[store])
        #expect(try cli.run("import", store, "-", input: Data(Self.richDocument.utf8)).status == 0)
        #expect(try cli.run("keys", store).lines.count == 19)
        #expect(try cli.run("export", store, "backup.json").status == 0)
        #expect(try cli.run("import", other, "backup.json").status == 0)
        let original = try cli.run("export", store)
        #expect(original.status == 0)
        #expect(try cli.run("export", other).stdout == original.stdout)
        #expect(cli.bytes("backup.json") == original.output)
    }

    @Test("plist exports (XML and binary) import into the other format exactly", arguments: storeNames, ["xml", "binary"])
    func plistExports(store: String, format: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let other = try #require(Self.otherFormat[store])
        try cli.run("import", store, "-", input: Data(Self.richDocument.utf8))
        let exported = try cli.run("export", store, "-", "--format", format)
        #expect(exported.status == 0)
        #expect(exported.output.starts(with: Data((format == "xml" ? "<?xml" : "bplist00").utf8)))
        #expect(try cli.run("import", other, "-", input: exported.output).status == 0)
        #expect(try cli.run("export", other).stdout == cli.run("export", store).stdout)
    }

    @Test("convert copies every value to the other format exactly", arguments: storeNames)
    func convert(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let other = try #require(Self.otherFormat[store])
        try cli.run("import", store, "-", input: Data(Self.richDocument.utf8))
        let converted = try cli.run("convert", store, other)
        #expect(converted.status == 0, "\(converted)")
        #expect(try cli.run("export", other).stdout == cli.run("export", store).stdout)
        #expect(
            try cli.run("info", other, "--json").stdout.contains(
                #""backend":"\#(other.hasSuffix("plist") ? "plist" : "sqlite")""#))
    }

    @Test("convert into a store that holds keys needs --replace", arguments: storeNames)
    func convertRefusesToOverwrite(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let other = try #require(Self.otherFormat[store])
        try cli.run("write", store, "a", "1", "--int")
        try cli.run("write", other, "b", "2", "--int")
        let before = cli.bytes(other)
        let refused = try cli.run("convert", store, other)
        #expect(refused.status == 3)
        #expect(refused.errorOutput.contains("--replace"))
        #expect(cli.bytes(other) == before)
        #expect(try cli.run("convert", store, other, "--replace").status == 0)
        #expect(try cli.run("read", other).lines == ["a: 1"])
    }

    @Test("import replaces the contents; --merge keeps other keys", arguments: storeNames)
    func importReplacesOrMerges(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "old", "1", "--int")
        #expect(try cli.run("import", store, "-", "--merge", input: Data(#"{"new": 2}"#.utf8)).status == 0)
        #expect(try cli.run("keys", store).lines == ["new", "old"])
        #expect(try cli.run("import", store, "-", input: Data(#"{"newer": 3}"#.utf8)).status == 0)
        #expect(try cli.run("keys", store).lines == ["newer"])
    }

    @Test("fractional dates: exact in SQLite and binary plists, refused by an XML plist")
    func fractionalDates() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let document = Data(#"{"when": {"$date": "2024-05-01T10:00:00.125Z"}}"#.utf8)
        #expect(try cli.run("import", "prefs.sqlite", "-", input: document).status == 0)
        #expect(try cli.run("convert", "prefs.sqlite", "binary.plist", "--format", "binary").status == 0)
        #expect(try cli.run("read", "binary.plist", "when").stdout == "2024-05-01T10:00:00.125Z\n")

        let refused = try cli.run("import", "xml.plist", "-", input: document)
        #expect(refused.status == 3)
        #expect(refused.errorOutput.contains("'when' cannot be kept exactly in the XML plist"))
        #expect(cli.bytes("xml.plist") == nil)
        #expect(try cli.run("convert", "prefs.sqlite", "xml.plist").status == 3)
        #expect(cli.bytes("xml.plist") == nil)
    }
}
