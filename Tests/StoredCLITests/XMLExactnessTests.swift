import Foundation
import Testing

/// Every CLI path that writes an XML plist refuses what XML cannot hold exactly — a fraction of a
/// second, a character XML 1.0 forbids — naming the key, and writes nothing.
@Suite("XML plist output is exact or refused")
struct XMLExactnessTests {
    static let inexact: [(name: String, json: String, says: String)] = [
        ("sub-second date", #"{"when": {"$date": "2024-05-01T10:00:00.125Z"}}"#, "Key 'when' cannot be kept exactly"),
        ("forbidden control", #"{"bell": "ring\u0007ring"}"#, "Key 'bell' cannot be written to the XML plist"),
        ("forbidden in a key", #"{"outer": {"a\u0001b": 1}}"#, "holds U+0001"),
        ("U+FFFE", #"{"odd": ["\uFFFE"]}"#, "holds U+FFFE"),
    ]

    /// A source store holding one inexact value (SQLite holds every value exactly).
    func source(_ cli: StoredProcess, _ json: String) throws {
        try cli.write(json, to: "in.json")
        let imported = try cli.run("import", "source.sqlite", cli.path("in.json"))
        #expect(imported.status == 0, "\(imported)")
    }

    @Test("export --format xml refuses and writes no file", arguments: inexact.indices)
    func export(_ index: Int) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try source(cli, Self.inexact[index].json)
        let outcome = try cli.run("export", "source.sqlite", cli.path("out.plist"), "--format", "xml")
        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.errorOutput.contains(Self.inexact[index].says), "\(outcome)")
        #expect(outcome.errorOutput.contains("--format binary"))
        #expect(cli.bytes("out.plist") == nil)
        #expect(try cli.run("export", "source.sqlite", cli.path("out.plist"), "--format", "binary").status == 0)
    }

    @Test("convert into an XML plist refuses and changes nothing", arguments: inexact.indices)
    func convert(_ index: Int) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try source(cli, Self.inexact[index].json)
        let outcome = try cli.run("convert", "source.sqlite", "target.plist")
        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.errorOutput.contains(Self.inexact[index].says), "\(outcome)")
        #expect(cli.bytes("target.plist") == nil)
    }

    @Test("import into an XML plist store refuses and changes nothing", arguments: inexact.indices)
    func importIntoXML(_ index: Int) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "target.plist", "kept", "1", "--int")
        let before = cli.bytes("target.plist")
        try cli.write(Self.inexact[index].json, to: "in.json")
        let outcome = try cli.run("import", "target.plist", cli.path("in.json"))
        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.errorOutput.contains(Self.inexact[index].says), "\(outcome)")
        #expect(cli.bytes("target.plist") == before)
    }
}
