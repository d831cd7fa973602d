import Foundation
import Testing

/// `convert`, `export` and `import` between files and a server: every value exact, all or nothing.
@Suite(
    "stored moving data to and from a PostgreSQL server", .enabled(if: CLIPostgresServer.isEnabled, CLIPostgresServer.skipMessage)
)
struct PostgresTransferTests {
    @Test(arguments: storeNames)
    func convertCopiesAFileToTheServerAndBackExactly(file: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("convert")
        try cli.run("write", file, "n", "3", "--int")
        try cli.run("write", file, "when", #"{"$date": "2024-05-01T10:00:00Z"}"#, "--json")
        try cli.run("write", file, "nested", #"{"a": [1, 2.5, "x", {"$data": "AAE="}]}"#, "--json")
        let original = try cli.run("export", file)
        #expect(try cli.run("convert", file, url, "--namespace", namespace).status == 0)
        #expect(try cli.run("export", url, "--namespace", namespace).stdout == original.stdout)
        // Into a namespace that holds keys only with --replace.
        let again = try cli.run("convert", file, url, "--namespace", namespace)
        #expect(again.status == 3, "\(again)")
        #expect(try cli.run("convert", url, "back." + (file as NSString).pathExtension, "--namespace", namespace).status == 0)
        #expect(try cli.run("export", "back." + (file as NSString).pathExtension).stdout == original.stdout)
        // Server to server: another namespace.
        let copy = CLIPostgresServer.freshNamespace("copy")
        #expect(try cli.run("convert", url, url, "--namespace", namespace, "--to-namespace", copy).status == 0)
        #expect(try cli.run("export", url, "--namespace", copy).stdout == original.stdout)
    }

    @Test func convertCarriesTheSchemaVersion() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let source = CLIPostgresServer.freshNamespace("versioned")
        try cli.run("write", url, "a", "1", "--int", "--namespace", source)
        try CLIPostgresServer.psql(url, "UPDATE storedkit.namespaces SET schema_version = 4 WHERE namespace = '\(source)'")
        #expect(try cli.run("convert", url, "copy.sqlite", "--namespace", source).status == 0)
        #expect(try cli.run("info", "copy.sqlite").lines.contains("schema version: 4"))
    }

    @Test func exportAndImportRoundTripThroughAFile() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("export")
        try cli.write(#"{"a": 1, "b": "two", "c": {"$double": "nan"}}"#, to: "in.json")
        #expect(try cli.run("import", url, "in.json", "--namespace", namespace).status == 0)
        #expect(try cli.run("export", url, "out.plist", "--namespace", namespace, "--format", "binary").status == 0)
        #expect(try cli.run("import", url, "out.plist", "--namespace", namespace).status == 0)
        #expect(try cli.run("keys", url, "--namespace", namespace).lines == ["a", "b", "c"])
        // Without --merge the namespace holds exactly the file's keys afterwards; with it, others stay.
        try cli.write(#"{"z": 26}"#, to: "z.json")
        #expect(try cli.run("import", url, "z.json", "--namespace", namespace, "--merge").status == 0)
        #expect(try cli.run("keys", url, "--namespace", namespace).lines == ["a", "b", "c", "z"])
        #expect(try cli.run("import", url, "z.json", "--namespace", namespace).status == 0)
        #expect(try cli.run("keys", url, "--namespace", namespace).lines == ["z"])
    }

    /// One key the server cannot hold (U+0000 in its name) stops the whole import: nothing of it lands.
    @Test func anImportTheServerRefusesChangesNothing() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("refused")
        try cli.run("write", url, "kept", "1", "--int", "--namespace", namespace)
        try cli.write(#"{"fine": 1, "bad\u0000key": 2}"#, to: "bad.json")
        let outcome = try cli.run("import", url, "bad.json", "--namespace", namespace)
        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.errorOutput.contains("U+0000"), "\(outcome)")
        try cli.write(#"{"fine": 1, "broken": "#, to: "malformed.json")
        #expect(try cli.run("import", url, "malformed.json", "--namespace", namespace).status == 3)
        #expect(try cli.run("read", url, "--namespace", namespace).stdout == "kept: 1\n")
    }
}
