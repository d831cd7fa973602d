import Foundation
import Testing

@Suite("read, read-type, write, keys, find")
struct ReadWriteCommandTests {
    /// Each type option, what it was given, and how `read` and `read-type` show the result.
    static let typedWrites: [(flag: String?, input: String, type: String, printed: String)] = [
        (nil, "hello", "string", #""hello""#),
        ("--string", "3", "string", #""3""#),
        ("--int", "-5", "integer", "-5"),
        ("--int", "18446744073709551615", "integer", "18446744073709551615"),
        ("--double", "0.8", "real", "0.8"),
        ("--double", "nan", "real", "nan"),
        ("--bool", "yes", "boolean", "true"),
        ("--bool", "0", "boolean", "false"),
        ("--date", "2024-05-01T12:00:00+02:00", "date", "2024-05-01T10:00:00Z"),
        ("--data", "cafe01", "data", "<cafe01>"),
        ("--data", "base64:yv4B", "data", "<cafe01>"),
        (
            "--json", #"{"a": [1, 2.5], "b": {"$date": "2024-05-01T10:00:00Z"}}"#, "dictionary",
            "a:\n  - 1\n  - 2.5\nb: 2024-05-01T10:00:00Z"
        ),
    ]

    @Test("write with each type option, then read and read-type", arguments: storeNames)
    func typedWritesReadBack(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        for (index, write) in Self.typedWrites.enumerated() {
            let key = "key\(index)"
            let written = try cli.run(["write", store, key, write.input] + (write.flag.map { [$0] } ?? []))
            #expect(written.status == 0, "\(write): \(written)")
            #expect(try cli.run("read", store, key).stdout == write.printed + "\n", "\(write)")
            #expect(try cli.run("read-type", store, key).stdout == write.type + "\n", "\(write)")
        }
        #expect(try cli.run("keys", store).lines.count == Self.typedWrites.count)
    }

    @Test("a negative number is a value, and -- ends the options", arguments: storeNames)
    func dashValues(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(try cli.run("write", store, "offset", "-0.5", "--double").status == 0)
        #expect(try cli.run("write", store, "name", "--", "--dash").status == 0)
        #expect(try cli.run("read", store, "offset").stdout == "-0.5\n")
        #expect(try cli.run("read", store, "name").stdout == "\"--dash\"\n")
    }

    @Test("read prints the whole store sorted, typed and indented", arguments: storeNames)
    func readWholeStore(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "volume", "1", "--double")
        try cli.run("write", store, "name", "Ada \"the\" first")
        try cli.run("write", store, "sidebar", #"{"order": ["home", [1, 2]], "hidden": [], "sizes": {}}"#, "--json")
        try cli.run("write", store, "my key", "true", "--bool")
        let read = try cli.run("read", store)
        #expect(read.status == 0)
        #expect(
            read.stdout == """
                "my key": true
                name: "Ada \\"the\\" first"
                sidebar:
                  hidden: []
                  order:
                    - "home"
                    -
                      - 1
                      - 2
                  sizes: {}
                volume: 1.0

                """)
    }

    @Test("--json on read and keys gives the JSON form", arguments: storeNames)
    func jsonOutput(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "when", "2024-05-01T10:00:00Z", "--date")
        try cli.run("write", store, "count", "3", "--int")
        let whole = try cli.run("read", store, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: whole.output) as? [String: Any])
        #expect(object["count"] as? Int == 3)
        #expect((object["when"] as? [String: String])?["$date"] == "2024-05-01T10:00:00Z")
        #expect(try cli.run("read", store, "count", "--json").stdout == "3\n")
        #expect(try cli.run("keys", store, "--json").stdout == #"["count","when"]"# + "\n")
    }

    @Test("find matches keys, nested keys and values, ignoring case", arguments: storeNames)
    func find(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "sidebar", #"{"order": ["Home", "library"]}"#, "--json")
        try cli.run("write", store, "homePage", "https://example.com")
        try cli.run("write", store, "volume", "0.8", "--double")
        let found = try cli.run("find", store, "home")
        #expect(found.status == 0)
        #expect(
            found.lines == [#"homePage: "https://example.com""#, "sidebar:", "  order:", #"    - "Home""#, #"    - "library""#])
        #expect(try cli.run("find", store, "0.8").lines == ["volume: 0.8"])
        let none = try cli.run("find", store, "nothing-like-this")
        #expect(none.status == 1)
        #expect(none.errorOutput.contains("nothing-like-this"))
    }

    @Test("a binary plist stays binary when written to")
    func binaryPlistKeepsItsFormat() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "seed.sqlite", "a", "1", "--int")
        #expect(try cli.run("convert", "seed.sqlite", "prefs.plist", "--format", "binary").status == 0)
        #expect(try cli.run("write", "prefs.plist", "b", "2", "--int").status == 0)
        let bytes = try #require(cli.bytes("prefs.plist"))
        #expect(bytes.starts(with: Data("bplist00".utf8)))
        #expect(try cli.run("read", "prefs.plist").lines == ["a: 1", "b: 2"])
    }
}
