import Foundation
import StoredKitTestSupport
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

/// Where a store 512 or 513 levels deep comes from: as another program writes each format.
enum DeepStoreSource: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// CPython's `plistlib`, XML and binary: an empty innermost array is `<array/>`.
    case xmlPlist, binaryPlist
    /// A JSON document of keys (`stored import`), and one value (`stored write --json`).
    case jsonImport, jsonWrite
    /// A row `sqlite3` or `psql` filled with the value's JSON.
    case sqliteRow, postgresRow

    var testDescription: String { rawValue }
}

/// The one nesting limit, applied alike by every reader and writer (issue 41): a value of
/// `StoredValue.maximumDepth` (512) levels, an empty container counting as any other and the
/// store's root not counted, goes in and out of every format; one level more is refused by every
/// one, in one wording.
extension NestingAcrossFormatsTests {
    static let limit = 512
    /// What every refusal says.
    static let refusal = "nested deeper than 512 levels of arrays and dictionaries (StoredValue.maximumDepth)"

    /// `depth` arrays, the innermost one empty (`[]`) or holding 7.
    static func nested(_ depth: Int, emptyInnermost: Bool) -> String {
        emptyInnermost
            ? String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            : NestingAcrossFormatsTests.nested(depth)
    }

    /// A plist of `{"deep": value}` as CPython's plistlib writes it, in `format` (XML or BINARY).
    static func plistlib(_ json: String, format: String, to path: String) throws {
        let script = """
            import json, plistlib, sys
            sys.setrecursionlimit(100000)
            value = json.loads(sys.stdin.read(), )
            open(sys.argv[1], "wb").write(plistlib.dumps({"deep": value}, fmt=plistlib.FMT_\(format)))
            """
        let (status, _) = try ExternalCommand.run("/usr/bin/python3", ["-c", script, path], input: Data(json.utf8))
        #expect(status == 0, "python3 plistlib could not write \(path)")
    }

    /// Makes the store `source` describes holding key "deep" = `json`; returns the store's
    /// argument(s) for `stored`, or nil when the source refused the value (then `refused` says how).
    static func makeStore(
        _ source: DeepStoreSource, json: String, in cli: StoredProcess
    ) throws -> (store: [String], refused: Outcome?)? {
        switch source {
        case .xmlPlist:
            try plistlib(json, format: "XML", to: cli.path("source.plist"))
            return (["source.plist"], nil)
        case .binaryPlist:
            try plistlib(json, format: "BINARY", to: cli.path("source.plist"))
            return (["source.plist"], nil)
        case .jsonImport:
            try cli.write("{\"deep\": \(json)}", to: "deep.json")
            let outcome = try cli.run("import", "source.sqlite", cli.path("deep.json"))
            return (["source.sqlite"], outcome.status == 0 ? nil : outcome)
        case .jsonWrite:
            let outcome = try cli.run("write", "source.plist", "deep", json, "--json")
            return (["source.plist"], outcome.status == 0 ? nil : outcome)
        case .sqliteRow:
            #expect(try cli.run("write", "source.sqlite", "deep", "[1]", "--json").status == 0)
            let (status, _) = try ExternalCommand.run(
                "/usr/bin/sqlite3", [cli.path("source.sqlite"), "UPDATE preferences SET value = '\(json)'"])
            #expect(status == 0)
            return (["source.sqlite"], nil)
        case .postgresRow:
            guard let url = CLIPostgresServer.url else { return nil }
            let namespace = CLIPostgresServer.freshNamespace("limit")
            #expect(try cli.run("write", url, "deep", "[1]", "--json", "--namespace", namespace).status == 0)
            try CLIPostgresServer.psql(
                url,
                "UPDATE storedkit.preferences SET json = '\(json)' WHERE namespace = '\(namespace)' AND key = 'deep'")
            return ([url, "--namespace", namespace], nil)
        }
    }

    @Test(arguments: DeepStoreSource.allCases, [false, true])
    func atTheLimitEveryFormatHoldsItAndOneMoreIsRefusedByEvery(source: DeepStoreSource, emptyInnermost: Bool) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let atLimit = Self.nested(Self.limit, emptyInnermost: emptyInnermost)
        guard let (store, refused) = try Self.makeStore(source, json: atLimit, in: cli) else { return }
        #expect(refused == nil, "\(source) refused a value at the limit: \(refused.map(\.description) ?? "")")
        let check = try cli.run(["check"] + store)
        #expect(check.status == 0, "\(source) at the limit: \(check)")
        let exported = try cli.run(["export"] + store + ["-", "--format", "json"])
        #expect(exported.status == 0 && exported.stdout.filter { $0 == "[" }.count == Self.limit, "\(source): \(exported)")
        // Into every other format and back: the same JSON.
        for (target, extra) in [
            ("xml.plist", ["--format", "xml"]), ("binary.plist", ["--format", "binary"]), ("copy.sqlite", []),
        ] {
            let convert = try cli.run(["convert"] + store + [cli.path(target)] + extra)
            #expect(convert.status == 0, "\(source) to \(target): \(convert)")
            #expect(try cli.run("check", target).status == 0, "\(target) from \(source)")
            let back = try cli.run("export", target, "-", "--format", "json")
            #expect(back.stdout == exported.stdout, "\(source) to \(target): \(back)")
        }
        #expect(try cli.run(["read"] + store + ["deep"]).status == 0)

        // One level more: refused by every reader and writer, each saying the same.
        let beyond = Self.nested(Self.limit + 1, emptyInnermost: emptyInnermost)
        let cli2 = try StoredProcess()
        defer { cli2.removeScratch() }
        guard let (deeper, refusedAtOnce) = try Self.makeStore(source, json: beyond, in: cli2) else { return }
        if let refusedAtOnce {
            #expect(refusedAtOnce.status == 3, "\(source): \(refusedAtOnce)")
            #expect(refusedAtOnce.errorOutput.contains(Self.refusal), "\(source): \(refusedAtOnce)")
            return
        }
        #expect(![.jsonImport, .jsonWrite].contains(source), "\(source) accepted a value one level too deep")
        let deepCheck = try cli2.run(["check"] + deeper)
        #expect(deepCheck.status == 3, "\(source) one level more: \(deepCheck)")
        #expect(deepCheck.errorOutput.contains(Self.refusal), "\(source): \(deepCheck)")
        let convert = try cli2.run(["convert"] + deeper + [cli2.path("copy.plist"), "--format", "binary"])
        #expect(convert.status == 3 && convert.errorOutput.contains(Self.refusal), "\(source): \(convert)")
        #expect(cli2.bytes("copy.plist") == nil, "\(source): a copy was written")
    }
}
