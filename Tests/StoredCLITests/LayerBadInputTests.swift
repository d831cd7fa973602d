import Foundation
import Testing

/// Bad layer options and layer files: the usage status, one line naming the option or file, the store unchanged.
@Suite("bad input: layers")
struct LayerBadInputTests {
    static let cases: [BadInputTests.Case] = [
        BadInputTests.Case(arguments: ["read", "STORE", "--forced"], status: 2, message: "'--forced FILE' needs a value"),
        BadInputTests.Case(arguments: ["read", "STORE", "--defaults"], status: 2, message: "'--defaults FILE' needs a value"),
        BadInputTests.Case(arguments: ["layers", "STORE", "--env-prefix"], status: 2, message: "'--env-prefix P' needs a value"),
        BadInputTests.Case(arguments: ["read", "STORE", "--env-prefix", ""], status: 2, message: "non-empty prefix"),
        BadInputTests.Case(arguments: ["write", "STORE", "a", "1", "--forced", ""], status: 2, message: "--forced needs a file"),
        BadInputTests.Case(
            arguments: ["layers", "STORE", "--forced-file", "f"], status: 2, message: "Unknown option '--forced-file'"),
        BadInputTests.Case(arguments: ["import", "STORE", "-", "--skip"], status: 2, message: "Unknown option '--skip'"),
        BadInputTests.Case(arguments: ["read", "STORE", "--root", "/tmp"], status: 2, message: "--root /tmp applies to a suite"),
        BadInputTests.Case(
            arguments: ["read", "STORE", "count", "--user", "--default"], status: 2, message: "--user or --default"),
        BadInputTests.Case(arguments: ["export", "STORE", "-", "--defaults", "d.plist"], status: 2, message: "only --effective"),
    ]

    @Test("each bad layer option: status 2, a clear message, the store unchanged", arguments: storeNames, cases)
    func badOption(store: String, bad: BadInputTests.Case) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "count", "1", "--int")
        let before = try #require(cli.bytes(store))
        let outcome = try cli.run(bad.arguments.map { $0 == "STORE" ? store : $0 })
        #expect(outcome.status == bad.status, "\(outcome)")
        #expect(outcome.errorOutput.contains(bad.message), "\(outcome)")
        #expect(outcome.errorOutput.hasPrefix("stored: ") && outcome.errorOutput.filter { $0 == "\n" }.count == 1)
        #expect(cli.bytes(store) == before)
    }

    /// Commands that read through layers, each given a layer file that cannot be read.
    static let layeredCommands: [[String]] = [
        ["read", "STORE"], ["read", "STORE", "count", "--source"], ["read", "STORE", "count", "--default"],
        ["read-type", "STORE", "count"], ["keys", "STORE"], ["find", "STORE", "count"],
        ["write", "STORE", "count", "2", "--int"], ["delete", "STORE", "count"], ["delete", "STORE", "--all"],
        ["rename", "STORE", "count", "total"], ["import", "STORE", "-"], ["export", "STORE", "out.json", "--effective"],
    ]

    /// The library reads a layer file it cannot read or parse as an empty layer and reports it
    /// (`StoreEvent.layerFileUnreadable`): an app with that file goes on. `stored` does the same, so it
    /// answers and writes as the app would, and warns on stderr naming the file.
    @Test("an unreadable or corrupt layer file reads as empty, as the library reads it, with a warning", arguments: storeNames)
    func unreadableLayerFile(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.write(#"<?xml version="1.0"?><plist version="1.0"><dict><key>count</key>"#, to: "corrupt.plist")
        try cli.write("", to: "empty.plist")  // a half-written save
        try cli.write("[1, 2]", to: "array.plist")
        try FileManager.default.createDirectory(atPath: cli.path("directory.plist"), withIntermediateDirectories: false)
        let input = Data(#"{"count": 5}"#.utf8)
        for command in Self.layeredCommands {
            // What the command does without the layer: what it must do with a layer read as empty.
            try? FileManager.default.removeItem(atPath: cli.path(store))
            try cli.run("write", store, "count", "1", "--int")
            let expected = try cli.run(command.map { $0 == "STORE" ? store : $0 }, input: input)
            let expectedStore = try cli.run("read", store, "--json").stdout
            let expectedExport = cli.bytes("out.json")
            for (option, file) in [
                ("--forced", "corrupt.plist"), ("--defaults", "empty.plist"), ("--forced", "directory.plist"),
                ("--defaults", "array.plist"),
            ] {
                try? FileManager.default.removeItem(atPath: cli.path(store))
                try? FileManager.default.removeItem(atPath: cli.path("out.json"))
                try cli.run("write", store, "count", "1", "--int")
                let arguments = command.map { $0 == "STORE" ? store : $0 } + [option, file]
                let outcome = try cli.run(arguments, input: input)
                #expect(outcome.status == expected.status, "\(arguments): \(outcome)")
                #expect(outcome.stdout == expected.stdout, "\(arguments): \(outcome)")
                #expect(
                    outcome.errorOutput.contains("warning: layer file '\(cli.path(file))' cannot be read: "),
                    "\(arguments): \(outcome)")
                #expect(try cli.run("read", store, "--json").stdout == expectedStore, "\(arguments)")
                #expect(cli.bytes("out.json") == expectedExport, "\(arguments)")
            }
        }
        // `layers` shows the file as unreadable and succeeds.
        let layers = try cli.run("layers", store, "--forced", "corrupt.plist")
        #expect(layers.status == 0, "\(layers)")
        #expect(layers.lines.contains { $0.contains(cli.path("corrupt.plist")) && $0.contains(" unreadable ") }, "\(layers)")
        #expect(layers.errorOutput.contains("'\(cli.path("corrupt.plist"))' cannot be read: "), "\(layers)")
    }

    /// The case of issue 41: an app whose site defaults file is garbled writes; so does `stored write`.
    @Test("write with a garbled defaults file succeeds, warning about the file", arguments: storeNames)
    func writeWithAGarbledDefaultsFile(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.write(#"<?xml version="1.0"?><plist version="1.0"><dict><key>count</key>"#, to: "defaults.plist")
        let outcome = try cli.run("write", store, "count", "2", "--int", "--defaults", "defaults.plist")
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.errorOutput.contains("'\(cli.path("defaults.plist"))' cannot be read: "), "\(outcome)")
        #expect(try cli.run("read", store, "count", "--user").stdout == "2\n")
    }

    /// The parser quotes what it did not expect, and an administrator's file is not the user's
    /// terminal's to drive: an escape sequence in it reaches stderr spelled out, never as bytes.
    @Test("a garbled forced file's control characters do not reach the terminal")
    func controlCharactersOfAGarbledFile() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "prefs.plist", "count", "1", "--int")
        let garbled =
            #"<?xml version="1.0"?><plist version="1.0"><dict><key>a</key><string>b</string>"#
            + "\u{1B}]0;owned\u{07}\u{1B}[2J"
        try cli.write(garbled, to: "forced.plist")
        for arguments in [["write", "prefs.plist", "count", "2", "--int"], ["layers", "prefs.plist"]] {
            let outcome = try cli.run(arguments + ["--forced", "forced.plist"])
            #expect(outcome.errorOutput.contains("'\(cli.path("forced.plist"))'"), "\(outcome)")
            #expect(outcome.errorOutput.contains("\\u001b]0;owned\\u0007"), "\(outcome)")
            #expect(!outcome.errorOutput.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(outcome)")
        }
    }

    /// U+202E and the other bidirectional overrides, embeddings, isolates and marks reorder the text
    /// a terminal shows around them (a file name, a key, a value): a diagnostic spells them out, as it
    /// does control characters, whether they come from a garbled file or a key the user typed.
    @Test("diagnostics spell out bidirectional controls, from a garbled file or a key")
    func bidirectionalControlsInDiagnostics() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "prefs.plist", "count", "1", "--int")
        let bidi = [
            "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
            "\u{200E}", "\u{200F}", "\u{061C}",
        ].joined()
        let spelled = #"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"#
        try cli.write(
            #"<?xml version="1.0"?><plist version="1.0"><dict><key>a</key><string>b</string>"# + bidi, to: "forced.plist")
        let outcomes = [
            try cli.run("write", "prefs.plist", "count", "2", "--int", "--forced", "forced.plist"),
            try cli.run("layers", "prefs.plist", "--forced", "forced.plist"),
            try cli.run("read", "prefs.plist", "gpj.\u{202E}exe"),  // a key as a spoofed file name
        ]
        for outcome in outcomes {
            #expect(!outcome.errorOutput.unicodeScalars.contains { bidi.unicodeScalars.contains($0) }, "\(outcome)")
        }
        #expect(outcomes[0].errorOutput.contains(spelled), "\(outcomes[0])")
        #expect(outcomes[1].errorOutput.contains(spelled), "\(outcomes[1])")
        #expect(outcomes[2].errorOutput.contains(#"gpj.\u202eexe"#), "\(outcomes[2])")
    }

    /// `keys` prints one key a line for scripts; a key holding a control character (a forced file's
    /// key can hold an escape sequence) is printed quoted and spelled out, never as bytes.
    @Test("keys prints a key holding control characters quoted, plain keys as they are")
    func keysWithControlCharacters() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "prefs.plist", "plain key", "1", "--int")
        try cli.run("write", "forced.plist", "x\u{1B}]0;owned\u{07}", "1", "--int")
        let outcome = try cli.run("keys", "prefs.plist", "--forced", "forced.plist")
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.lines == ["plain key", #""x\u001b]0;owned\u0007""#], "\(outcome)")
        #expect(!outcome.stdout.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(outcome)")
    }

    /// What `stored` prints on stdout quotes keys and values of files it does not control: a
    /// bidirectional override (U+202E) or a C1 control (U+009B, a terminal's one-byte CSI) in them is
    /// spelled out as JSON spells it, in every form (`keys`, `read`, `read --json`, `find`), and the
    /// JSON still reads back the same value.
    @Test("stdout spells out bidirectional overrides and C1 controls of keys and values")
    func bidirectionalControlsOnStdout() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "prefs.plist", "gpj.\u{202E}exe", "a\u{009B}2Jb\u{2067}c")
        let unsafe: Set<Unicode.Scalar> = ["\u{202E}", "\u{009B}", "\u{2067}"]
        for arguments in [["keys"], ["keys", "--json"], ["read"], ["read", "--json"], ["find", "exe"]] {
            let outcome = try cli.run([arguments[0], "prefs.plist"] + arguments.dropFirst())
            #expect(outcome.status == 0, "\(arguments): \(outcome)")
            #expect(!outcome.stdout.unicodeScalars.contains(where: unsafe.contains), "\(arguments): \(outcome)")
            #expect(outcome.stdout.contains(#"gpj.\u202eexe"#), "\(arguments): \(outcome)")
        }
        let json = try cli.run("read", "prefs.plist", "--json").output
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: String])
        #expect(object == ["gpj.\u{202E}exe": "a\u{009B}2Jb\u{2067}c"])
    }
}
