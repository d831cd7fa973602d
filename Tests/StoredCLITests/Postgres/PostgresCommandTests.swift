import Foundation
import Testing

/// Every `stored` command against a namespace of the real test server, as a user runs them.
@Suite("stored on a PostgreSQL server", .enabled(if: CLIPostgresServer.isEnabled, CLIPostgresServer.skipMessage))
struct PostgresCommandTests {
    @Test func writeReadKeysFindRenameDeleteOnANamespace() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("edit")
        func run(_ arguments: String...) throws -> Outcome { try cli.run(arguments + ["--namespace", namespace]) }
        #expect(try run("write", url, "volume", "0.8", "--double").status == 0)
        #expect(try run("write", url, "sidebar", #"{"order": ["home", "rooms"]}"#, "--json").status == 0)
        #expect(try run("read", url, "volume").stdout == "0.8\n")
        #expect(try run("read-type", url, "sidebar").stdout == "dictionary\n")
        #expect(try run("keys", url).lines == ["sidebar", "volume"])
        #expect(try run("find", url, "rooms").stdout.contains("sidebar"))
        #expect(try run("rename", url, "volume", "level").status == 0)
        #expect(try run("delete", url, "sidebar").status == 0)
        #expect(try run("read", url).stdout == "level: 0.8\n")
        // Another namespace of the same server stays apart; the default one is `default`.
        #expect(try cli.run("write", url, "volume", "0.1", "--double").status == 0)
        #expect(try cli.run("read", url, "volume").stdout == "0.1\n")
        #expect(try run("read", url, "volume").status == 1)
        #expect(try run("delete", url, "--all").status == 0)
        #expect(try run("keys", url).stdout.isEmpty)
    }

    @Test func infoAndCheckDescribeTheNamespace() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("info")
        try cli.run("write", url, "a", "1", "--int", "--namespace", namespace)
        try cli.run("write", url, "b", "2", "--int", "--namespace", namespace)
        let info = try cli.run("info", url, "--namespace", namespace, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: info.output) as? [String: Any], "\(info)")
        #expect(object["backend"] as? String == "postgresql")
        #expect(object["namespace"] as? String == namespace)
        #expect(object["keyCount"] as? Int == 2)
        #expect(object["revision"] as? Int == 2)
        #expect((object["server"] as? String)?.hasPrefix("postgresql://postgres@127.0.0.1:") == true)
        let text = try cli.run("info", url, "--namespace", namespace)
        #expect(text.lines.contains("keys:           2"), "\(text)")
        let check = try cli.run("check", url, "--namespace", namespace)
        #expect(check.status == 0)
        #expect(check.stdout.contains("is sound: postgresql, 2 keys"), "\(check)")
    }

    /// A row someone wrote by hand in a type the store cannot read is damage `check` reports (status 4).
    @Test func checkReportsARowThatDoesNotDecode() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("damaged")
        try cli.run("write", url, "a", "1", "--int", "--namespace", namespace)
        try CLIPostgresServer.psql(
            url, "UPDATE storedkit.preferences SET type = 'mystery' WHERE namespace = '\(namespace)' AND key = 'a'")
        let check = try cli.run("check", url, "--namespace", namespace)
        #expect(check.status == 4, "\(check)")
        #expect(check.errorOutput.contains("'a'"), "\(check)")
    }

    @Test func namespacesListsKeyCountsAndSchemaVersions() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let first = CLIPostgresServer.freshNamespace("list-a")
        let second = CLIPostgresServer.freshNamespace("list-b")
        try cli.run("write", url, "a", "1", "--int", "--namespace", first)
        try cli.run("write", url, "a", "1", "--int", "--namespace", second)
        try cli.run("write", url, "b", "1", "--int", "--namespace", second)
        try CLIPostgresServer.psql(url, "UPDATE storedkit.namespaces SET schema_version = 3 WHERE namespace = '\(second)'")
        let listed = try cli.run("namespaces", url)
        #expect(listed.status == 0)
        #expect(listed.lines.contains("\(first): 1 key, schema version 0"), "\(listed)")
        #expect(listed.lines.contains("\(second): 2 keys, schema version 3"), "\(listed)")
        let json = try cli.run("namespaces", url, "--json")
        let objects = try #require(try JSONSerialization.jsonObject(with: json.output) as? [[String: Any]])
        let entry = try #require(objects.first { $0["name"] as? String == second })
        #expect(entry["keyCount"] as? Int == 2)
        #expect(entry["schemaVersion"] as? Int == 3)
        // A file is not a server.
        #expect(try cli.run("namespaces", "prefs.sqlite").status == 2)
    }

    /// A namespace nobody wrote is like a missing file: reading commands say so (status 5) and create nothing.
    @Test func readingAMissingNamespaceCreatesNothing() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("missing")
        for command in ["read", "keys", "info", "check", "export"] {
            let outcome = try cli.run(command, url, "--namespace", namespace)
            #expect(outcome.status == 5, "\(command): \(outcome)")
            #expect(outcome.errorOutput.contains("has no namespace '\(namespace)'"), "\(command): \(outcome)")
        }
        #expect(!(try cli.run("namespaces", url).stdout.contains(namespace)))
    }
}
