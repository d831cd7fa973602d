import Foundation
import Testing

// The shell session of "Inspecting stores with stored" (Sources/StoredKit/StoredKit.docc/InspectingStores.md),
// run command by command against the built tool.

@Suite("Inspecting stores with stored")
struct InspectingStoresExamples {
    /// The store the article's session builds.
    func makeStore() throws -> StoredTool {
        let stored = try StoredTool()
        #expect(try stored.run("write", "prefs.sqlite", "volume", "0.8", "--double").status == 0)
        #expect(try stored.run("write", "prefs.sqlite", "launchCount", "3", "--int").status == 0)
        let sidebar = #"{"order": ["home", "library"], "hidden": ["radio"]}"#
        #expect(try stored.run("write", "prefs.sqlite", "sidebar", sidebar, "--json").status == 0)
        #expect(try stored.run("write", "prefs.sqlite", "lastOpened", "2024-05-01T10:00:00.25Z", "--date").status == 0)
        return stored
    }

    @Test func readPrintsEveryValueTyped() throws {
        let stored = try makeStore()
        let read = try stored.run("read", "prefs.sqlite")
        #expect(
            read.stdout == """
                lastOpened: 2024-05-01T10:00:00.25Z
                launchCount: 3
                sidebar:
                  hidden:
                    - "radio"
                  order:
                    - "home"
                    - "library"
                volume: 0.8

                """)
        #expect(try stored.run("read-type", "prefs.sqlite", "sidebar").stdout == "dictionary\n")
        let info = try stored.run("info", "prefs.sqlite").stdout
        #expect(info.contains("backend:        sqlite"))
        #expect(info.contains("keys:           4"))
    }

    @Test func errorsNameTheKeyAndSetTheStatus() throws {
        let stored = try makeStore()
        let bad = try stored.run("write", "prefs.sqlite", "launchCount", "many", "--int")
        #expect(bad.status == 3)
        #expect(bad.stderr.hasPrefix("stored: Invalid value for 'launchCount': 'many' is not an integer."))
        let missing = try stored.run("read", "prefs.sqlite", "theme")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("Key 'theme' not found"))
    }

    @Test func exportWritesTaggedJSON() throws {
        let stored = try makeStore()
        #expect(try stored.run("export", "prefs.sqlite", "backup.json").status == 0)
        let json = try String(contentsOf: stored.directory.file("backup.json"), encoding: .utf8)
        #expect(json.contains(#""lastOpened": {"$date": "2024-05-01T10:00:00.25Z"}"#))
        #expect(json.contains(#""launchCount": 3"#))
    }

    @Test func convertRefusesWhatAnXMLPlistWouldChange() throws {
        let stored = try makeStore()
        let xml = try stored.run("convert", "prefs.sqlite", "prefs.plist")
        #expect(xml.status == 3)
        #expect(xml.stderr.contains("2024-05-01T10:00:00.25Z would become 2024-05-01T10:00:00Z"))
        #expect(!FileManager.default.fileExists(atPath: stored.directory.file("prefs.plist").path))
        #expect(try stored.run("convert", "prefs.sqlite", "prefs.plist", "--format", "binary").status == 0)
        let check = try stored.run("check", "prefs.plist")
        #expect(check.stdout.hasSuffix("is sound: plist, 4 keys.\n"))
    }

    /// "Where a value comes from": the layers session, with the example's files in the example directory.
    @Test func layersSayWhereAValueComesFrom() throws {
        let stored = try makeStore()
        #expect(try stored.run("write", "forced.plist", "volume", "0.3", "--double").status == 0)
        #expect(try stored.run("write", "defaults.plist", "volume", "0.5", "--double").status == 0)
        let forced = stored.directory.file("forced.plist").path
        let layers = try stored.run("layers", "prefs.sqlite", "--forced", "forced.plist", "--defaults", "defaults.plist")
        #expect(layers.stdout.split(separator: "\n").map { $0.split(separator: " ").first } == ["forced", "user", "defaults"])
        #expect(
            try stored.run("read", "prefs.sqlite", "volume", "--source", "--forced", "forced.plist").stdout
                == "forced:\(forced)\t0.3\n")
        #expect(try stored.run("read", "prefs.sqlite", "volume", "--user").stdout == "0.8\n")
        #expect(try stored.run("read", "prefs.sqlite", "volume", "--default", "--defaults", "defaults.plist").stdout == "0.5\n")
        let refused = try stored.run("write", "prefs.sqlite", "volume", "0.9", "--double", "--forced", "forced.plist")
        #expect(refused.status == 7)
        #expect(refused.stderr.hasPrefix("stored: Key 'volume' is forced by '\(forced)'"))
        #expect(try stored.run("export", "prefs.sqlite", "backup.json").status == 0)
        let skipped = try stored.run("import", "prefs.sqlite", "backup.json", "--skip-forced", "--forced", "forced.plist")
        #expect(skipped.status == 0)
        #expect(skipped.stderr.hasPrefix("stored: skipped key 'volume': forced by '\(forced)'"))
    }
}
