import Foundation
import Testing

@Suite("export: the user's layer, or --effective")
struct LayerExportCommandTests {
    @Test("export is the user's layer (a backup); --effective the values read through the layers", arguments: storeNames)
    func userLayerOrEffective(store: String) throws {
        let fixture = try LayeredFixture(store: store)
        let cli = fixture.cli
        defer { cli.removeScratch() }
        let backup = try cli.run(["export", store, "-"], environment: fixture.environment)
        #expect(backup.status == 0, "\(backup)")
        #expect(
            try JSONSerialization.jsonObject(with: backup.output) as? NSDictionary == ["name": "Ada", "own": true, "volume": 0.8])
        let effective = try cli.run(
            ["export", store, "-", "--effective"] + fixture.layerOptions, environment: fixture.environment)
        #expect(effective.status == 0, "\(effective)")
        #expect(
            try JSONSerialization.jsonObject(with: effective.output) as? NSDictionary == [
                "font": "A", "name": "Bob", "own": true, "size": 3, "theme": "dark", "volume": 0.3,
            ])
        // The backup imports back exactly, with the forced file still in place for another key.
        try backup.output.write(to: URL(fileURLWithPath: cli.path("backup.json")))
        #expect(try cli.run("import", "copy.plist", "backup.json").status == 0)
        #expect(try cli.run("read", "copy.plist").lines == ["name: \"Ada\"", "own: true", "volume: 0.8"])
    }

    @Test("a layer option without --effective is a usage error, since a backup has no layers")
    func layerOptionNeedsEffective() throws {
        let fixture = try LayeredFixture(store: "prefs.plist")
        let cli = fixture.cli
        defer { cli.removeScratch() }
        let outcome = try cli.run("export", "prefs.plist", "out.json", "--forced", "forced.plist")
        #expect(outcome.status == 2, "\(outcome)")
        #expect(outcome.errorOutput.contains("--effective"), "\(outcome)")
        #expect(cli.bytes("out.json") == nil)
    }

    @Test("a suite's export is the user's file, whatever its standard layers hold")
    func suiteBackupIgnoresLayers() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let root = cli.scratch.appendingPathComponent("root")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("etc/storedkit/forced"), withIntermediateDirectories: true)
        try cli.run("write", "root/etc/storedkit/forced/com.example.app.plist", "volume", "0.3", "--double")
        try cli.run("write", "com.example.app", "volume", "0.8", "--double")
        let backup = try cli.run("export", "com.example.app", "-", "--root", root.path)
        #expect(try JSONSerialization.jsonObject(with: backup.output) as? NSDictionary == ["volume": 0.8], "\(backup)")
        let effective = try cli.run("export", "com.example.app", "-", "--effective", "--root", root.path)
        #expect(try JSONSerialization.jsonObject(with: effective.output) as? NSDictionary == ["volume": 0.3], "\(effective)")
    }
}
