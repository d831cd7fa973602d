import Foundation
import Testing

@Suite("layers")
struct LayersCommandTests {
    @Test("layers lists every layer in reading order with its file, whether it exists and is read-only", arguments: storeNames)
    func listsTheStack(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "forced.plist", "volume", "0.3", "--double")
        try cli.run("write", "a.plist", "theme", "dark")
        try cli.run("write", store, "volume", "0.8", "--double")
        try FileManager.default.createDirectory(atPath: cli.path("directory.plist"), withIntermediateDirectories: false)
        // Writable by anyone: it locks nothing against a user who can edit it.
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: cli.path("forced.plist"))
        let arguments = [
            "layers", store, "--defaults", "a.plist", "--env-prefix", "MYAPP_", "--forced", "forced.plist",
            "--defaults", "missing.plist", "--forced", "directory.plist",
        ]
        let outcome = try cli.run(arguments, environment: ["MYAPP_VOLUME": "0.1", "MYAPP_NAME": "Bob"])
        #expect(outcome.status == 0, "\(outcome)")
        let rows = outcome.lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(rows.map { $0.first ?? "" } == ["forced", "forced", "environment", "user", "defaults", "defaults"])
        #expect(rows[0] == ["forced", cli.path("forced.plist"), "exists", "read-only"])
        #expect(rows[1] == ["forced", cli.path("directory.plist"), "unreadable", "read-only"])
        #expect(outcome.errorOutput.contains("'\(cli.path("directory.plist"))' cannot be read: "), "\(outcome)")
        #expect(rows[2] == ["environment", "MYAPP_*", "2", "variables", "read-only"])
        #expect(rows[3] == ["user", cli.path(store), "exists", "writable"])
        #expect(rows[4] == ["defaults", cli.path("a.plist"), "exists", "read-only"])
        #expect(rows[5] == ["defaults", cli.path("missing.plist"), "missing", "read-only"])
        // Said on stderr.
        #expect(outcome.errorOutput.contains("'\(cli.path("forced.plist"))' can be written by you"), "\(outcome)")
    }

    @Test("layers --json, on a store that does not exist yet", arguments: storeNames)
    func jsonAndMissingStore(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let missing = try cli.run("layers", store, "--json", "--forced", "forced.plist")
        #expect(missing.status == 0, "\(missing)")
        let rows = try #require(try JSONSerialization.jsonObject(with: missing.output) as? [[String: Any]])
        #expect(rows.map { $0["layer"] as? String } == ["forced", "user"])
        #expect(rows[0]["location"] as? String == cli.path("forced.plist"))
        #expect(rows[0]["exists"] as? Bool == false)
        #expect(rows[0]["readOnly"] as? Bool == true)
        #expect(rows[1]["exists"] as? Bool == false)
        #expect(rows[1]["readOnly"] as? Bool == false)
        #expect(!FileManager.default.fileExists(atPath: cli.path(store)), "layers must not create the store")
    }
}
