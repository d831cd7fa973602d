import Foundation
import Testing

/// Every bad input gives its documented exit status and a one-line message naming what is wrong,
/// and leaves the store byte for byte as it was.
@Suite("bad input")
struct BadInputTests {
    struct Case: CustomStringConvertible, Sendable {
        let arguments: [String]
        let status: Int32
        /// Text the one-line message must contain.
        let message: String
        var input: String?

        var description: String { arguments.joined(separator: " ") }
    }

    /// `STORE` stands for the store under test.
    static let cases: [Case] = [
        Case(arguments: ["frobnicate", "STORE"], status: 2, message: "Unknown command 'frobnicate'"),
        Case(arguments: ["read", "STORE", "--verbose"], status: 2, message: "Unknown option '--verbose'"),
        Case(arguments: ["write", "STORE", "count"], status: 2, message: "expects STORE KEY VALUE"),
        Case(arguments: ["write", "STORE", "count", "1", "--int", "--bool"], status: 2, message: "one type option"),
        Case(arguments: ["delete", "STORE"], status: 2, message: "--all"),
        Case(arguments: ["watch", "STORE", "--count", "many"], status: 2, message: "--count takes a positive whole number"),
        Case(arguments: ["export", "STORE", "-", "--format", "yaml"], status: 2, message: "Unknown format 'yaml'"),
        Case(arguments: ["write", "STORE", "count", "abc", "--int"], status: 3, message: "'abc' is not an integer"),
        Case(arguments: ["write", "STORE", "count", "1.5", "--int"], status: 3, message: "'1.5' is not an integer"),
        Case(arguments: ["write", "STORE", "flag", "maybe", "--bool"], status: 3, message: "'maybe' is not a boolean"),
        Case(arguments: ["write", "STORE", "ratio", "fast", "--double"], status: 3, message: "'fast' is not a number"),
        Case(arguments: ["write", "STORE", "when", "yesterday", "--date"], status: 3, message: "'yesterday' is not a date"),
        Case(arguments: ["write", "STORE", "blob", "xyz!", "--data"], status: 3, message: "is not hex or base64 data"),
        Case(
            arguments: ["write", "STORE", "tabs", #"{"order": ["home",]"#, "--json"], status: 3,
            message: "Invalid JSON for 'tabs'"),
        Case(arguments: ["write", "STORE", "tabs", "null", "--json"], status: 3, message: "Invalid JSON for 'tabs'"),
        Case(
            arguments: ["import", "STORE", "-"], status: 3, message: "'standard input' is not valid JSON",
            input: #"{"a": 1, "b": "#),
        Case(arguments: ["import", "STORE", "-"], status: 3, message: "not a dictionary", input: "[1, 2]"),
        Case(
            arguments: ["import", "STORE", "-"], status: 3, message: "is not a valid plist", input: "<plist><dict><key>a</key>"),
        Case(arguments: ["import", "STORE", "-"], status: 3, message: "not valid JSON", input: #"{"a": {"$date": "soon"}}"#),
        Case(arguments: ["import", "STORE", "missing.json"], status: 5, message: "Could not read 'missing.json'"),
        Case(arguments: ["read", "STORE", "missing"], status: 1, message: "Key 'missing' not found"),
        Case(arguments: ["read-type", "STORE", "missing"], status: 1, message: "Key 'missing' not found"),
        Case(arguments: ["delete", "STORE", "count", "missing"], status: 1, message: "Key 'missing' not found"),
        Case(arguments: ["rename", "STORE", "missing", "other"], status: 1, message: "Key 'missing' not found"),
        Case(arguments: ["rename", "STORE", "count", "name"], status: 3, message: "Key 'name' already exists"),
    ]

    @Test("each bad input: its exit status, a clear message, the store unchanged", arguments: storeNames, cases)
    func badInput(store: String, bad: Case) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "count", "1", "--int")
        try cli.run("write", store, "name", "Ada")
        let before = try #require(cli.bytes(store))
        let outcome = try cli.run(bad.arguments.map { $0 == "STORE" ? store : $0 }, input: bad.input.map { Data($0.utf8) })
        #expect(outcome.status == bad.status, "\(outcome)")
        #expect(outcome.errorOutput.contains(bad.message), "\(outcome)")
        #expect(outcome.errorOutput.hasPrefix("stored: ") && outcome.errorOutput.filter { $0 == "\n" }.count == 1)
        #expect(cli.bytes(store) == before)
    }

    @Test("a reserved key makes a plist import fail as a whole")
    func importIsAllOrNothing() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "prefs.plist", "count", "1", "--int")
        let before = cli.bytes("prefs.plist")
        let outcome = try cli.run("import", "prefs.plist", "-", input: Data(#"{"a": 1, "StoredKit.metadata": 2}"#.utf8))
        #expect(outcome.status == 3)
        #expect(outcome.errorOutput.contains("'StoredKit.metadata'"))
        #expect(cli.bytes("prefs.plist") == before)
    }

    /// Commands run against a corrupt store; each must stop with status 4 and touch nothing.
    static let commandsOnCorruptStore: [[String]] = [
        ["read", "STORE"], ["read", "STORE", "a"], ["read-type", "STORE", "a"], ["keys", "STORE"],
        ["find", "STORE", "a"], ["write", "STORE", "a", "1"], ["delete", "STORE", "a"], ["delete", "STORE", "--all"],
        ["rename", "STORE", "a", "b"], ["export", "STORE", "out.json"], ["info", "STORE"], ["check", "STORE"],
        ["watch", "STORE", "--count", "1"], ["convert", "STORE", "copy.sqlite"], ["convert", "STORE", "copy.plist"],
    ]

    static let corruptContents = [
        "prefs.plist": Data(#"<?xml version="1.0"?><plist version="1.0"><dict><key>a</key><integer>1"#.utf8),
        "prefs.sqlite": Data(repeating: 0x5A, count: 4096),
    ]

    @Test("a corrupt store: status 4, named in the message, never moved or changed", arguments: storeNames)
    func corruptStore(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let corrupt = try #require(Self.corruptContents[store])
        try corrupt.write(to: URL(fileURLWithPath: cli.path(store)))
        for command in Self.commandsOnCorruptStore + [["import", "STORE", "-"]] {
            let outcome = try cli.run(command.map { $0 == "STORE" ? store : $0 }, input: Data(#"{"a": 1}"#.utf8))
            #expect(outcome.status == 4, "\(command): \(outcome)")
            #expect(outcome.errorOutput.contains(cli.path(store)), "\(command): \(outcome)")
            #expect(cli.bytes(store) == corrupt, "\(command)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: cli.scratch.path)
        #expect(!files.contains { $0.contains(".corrupt-") || $0.hasPrefix("copy") || $0 == "out.json" }, "\(files)")
    }

    @Test("an unwritable path gives status 5 naming the path", arguments: storeNames)
    func unwritablePath(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.write("not a directory", to: "file")
        try cli.run("write", "source.plist", "a", "1", "--int")
        let target = "file/" + store
        let attempts: [[String]] = [
            ["write", target, "a", "1"], ["import", target, "-"], ["convert", "source.plist", target],
            ["export", "source.plist", "file/out.json"],
        ]
        for attempt in attempts {
            let outcome = try cli.run(attempt, input: Data(#"{"a": 1}"#.utf8))
            #expect(outcome.status == 5, "\(attempt): \(outcome)")
            #expect(outcome.errorOutput.contains("file/"), "\(attempt): \(outcome)")
        }
        #expect(cli.bytes("file") == Data("not a directory".utf8))
    }

    @Test("commands that only read a missing store fail with status 5 and create nothing", arguments: storeNames)
    func missingStore(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        for command in [["read"], ["keys"], ["info"], ["check"], ["export"], ["find", "x"], ["watch", "--count", "1"]] {
            let outcome = try cli.run([command[0], store] + command.dropFirst())
            #expect(outcome.status == 5, "\(command): \(outcome)")
            #expect(outcome.errorOutput.contains("does not exist"), "\(command): \(outcome)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.scratch.path).isEmpty)
    }

    @Test("another program's SQLite database, and an empty file for reading, are left alone")
    func foreignDatabase() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "prefs.sqlite", "a", "1", "--int")
        // What another program's database looks like: rollback journal (bytes 18, 19) and no application ID.
        var bytes = try #require(cli.bytes("prefs.sqlite"))
        bytes.replaceSubrange(18..<20, with: [1, 1])
        bytes.replaceSubrange(68..<72, with: [0, 0, 0, 0])
        try bytes.write(to: URL(fileURLWithPath: cli.path("other.db")))
        try Data().write(to: URL(fileURLWithPath: cli.path("empty.sqlite")))
        for command in [["read", "other.db"], ["write", "other.db", "b", "2"], ["keys", "empty.sqlite"]] {
            let outcome = try cli.run(command)
            #expect(outcome.status == 3, "\(command): \(outcome)")
            #expect(outcome.errorOutput.contains(cli.path(command[1])), "\(command): \(outcome)")
        }
        #expect(cli.bytes("other.db") == bytes)
        #expect(cli.bytes("empty.sqlite") == Data())
        #expect(try cli.run("write", "empty.sqlite", "b", "2", "--int").status == 0)
    }
}
