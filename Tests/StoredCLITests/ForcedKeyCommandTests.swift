import Foundation
import Testing

/// Writes of a key an administrator's forced file holds: status 7, the file named, nothing written.
@Suite("forced keys: write, delete, rename, import")
struct ForcedKeyCommandTests {
    /// A store (volume 0.8, name "Ada", count 1) and forced.plist forcing volume and theme.
    func makeFixture(_ store: String) throws -> StoredProcess {
        let cli = try StoredProcess()
        try cli.run("write", "forced.plist", "volume", "0.3", "--double")
        try cli.run("write", "forced.plist", "theme", "dark")
        try cli.run("write", store, "volume", "0.8", "--double")
        try cli.run("write", store, "name", "Ada")
        try cli.run("write", store, "count", "1", "--int")
        return cli
    }

    static let refusedCommands: [[String]] = [
        ["write", "STORE", "volume", "0.9", "--double"],
        ["write", "STORE", "theme", "light"],  // forced, and the user has no value of it
        ["delete", "STORE", "volume"],
        ["delete", "STORE", "name", "theme"],
        ["delete", "STORE", "--all"],
        ["rename", "STORE", "volume", "loudness"],
        ["rename", "STORE", "name", "theme"],
        ["import", "STORE", "-"],
        ["import", "STORE", "-", "--merge"],
    ]

    @Test("each write of a forced key: status 7, the key and file named, the store unchanged", arguments: storeNames)
    func refused(store: String) throws {
        let cli = try makeFixture(store)
        defer { cli.removeScratch() }
        let before = try #require(cli.bytes(store))
        for command in Self.refusedCommands {
            let arguments = command.map { $0 == "STORE" ? store : $0 } + ["--forced", "forced.plist"]
            let outcome = try cli.run(arguments, input: Data(#"{"name": "Bo", "theme": "light"}"#.utf8))
            #expect(outcome.status == 7, "\(command): \(outcome)")
            #expect(outcome.errorOutput.contains("forced by '\(cli.path("forced.plist"))'"), "\(command): \(outcome)")
            #expect(outcome.errorOutput.contains("nothing was written"), "\(command): \(outcome)")
            #expect(cli.bytes(store) == before, "\(command)")
        }
        // Keys nobody forces are written as before, with the forced file in place.
        #expect(try cli.run("write", store, "name", "Bo", "--forced", "forced.plist").status == 0)
        #expect(try cli.run("delete", store, "count", "--forced", "forced.plist").status == 0)
        #expect(try cli.run("read", store, "--user").lines == ["name: \"Bo\"", "volume: 0.8"])
        // A defaults layer locks nothing.
        #expect(try cli.run("write", store, "volume", "0.7", "--double", "--defaults", "forced.plist").status == 0)
        // Nor does the environment, but what it hides is said.
        let hidden = try cli.run(
            ["write", store, "name", "Cy", "--env-prefix", "MYAPP_"], environment: ["MYAPP_NAME": "Bob"])
        #expect(hidden.status == 0, "\(hidden)")
        #expect(hidden.errorOutput.contains("the environment variable MYAPP_NAME hides it"), "\(hidden)")
        #expect(try cli.run("read", store, "name").stdout == "\"Cy\"\n")
    }

    @Test("an import that touches a forced key imports nothing, naming every forced key", arguments: storeNames)
    func importIsAllOrNothing(store: String) throws {
        let cli = try makeFixture(store)
        defer { cli.removeScratch() }
        let before = try #require(cli.bytes(store))
        let file = #"{"volume": 1.0, "theme": "light", "name": "Bo", "extra": 2}"#
        let outcome = try cli.run(["import", store, "-", "--forced", "forced.plist"], input: Data(file.utf8))
        #expect(outcome.status == 7, "\(outcome)")
        #expect(outcome.errorOutput.contains("'theme'") && outcome.errorOutput.contains("'volume'"), "\(outcome)")
        #expect(outcome.errorOutput.contains("--skip-forced"), "\(outcome)")
        #expect(cli.bytes(store) == before)
        // Replacing the contents removes the user's volume, which is a write of a forced key too.
        let removal = try cli.run(["import", store, "-", "--forced", "forced.plist"], input: Data(#"{"name": "Bo"}"#.utf8))
        #expect(removal.status == 7, "\(removal)")
        #expect(removal.errorOutput.contains("'volume'"), "\(removal)")
        #expect(cli.bytes(store) == before)
    }

    @Test("import --skip-forced imports the rest and reports each skipped key", arguments: storeNames)
    func skipForced(store: String) throws {
        let cli = try makeFixture(store)
        defer { cli.removeScratch() }
        let file = #"{"volume": 1.0, "theme": "light", "name": "Bo", "extra": 2}"#
        let outcome = try cli.run(
            ["import", store, "-", "--forced", "forced.plist", "--skip-forced"], input: Data(file.utf8))
        #expect(outcome.status == 0, "\(outcome)")
        let reports = outcome.errorOutput.split(separator: "\n").map(String.init)
        #expect(reports.count == 2, "\(outcome)")
        #expect(reports.allSatisfy { $0.contains("forced by '\(cli.path("forced.plist"))'") }, "\(outcome)")
        #expect(reports.first?.contains("'theme'") == true && reports.last?.contains("'volume'") == true, "\(outcome)")
        // count is gone (not in the file), volume keeps the user's 0.8, theme stays absent.
        #expect(try cli.run("read", store, "--user").lines == ["extra: 2", "name: \"Bo\"", "volume: 0.8"])
    }

    @Test("a suite's standard forced file refuses writes, with no option given")
    func suiteForcedFile() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let forcedDirectory = cli.scratch.appendingPathComponent("root/etc/storedkit/forced")
        try FileManager.default.createDirectory(at: forcedDirectory, withIntermediateDirectories: true)
        let forced = "root/etc/storedkit/forced/com.example.app.plist"
        try cli.run("write", forced, "volume", "0.3", "--double")
        let root = cli.path("root")
        let outcome = try cli.run("write", "com.example.app", "volume", "0.9", "--double", "--root", root)
        #expect(outcome.status == 7, "\(outcome)")
        #expect(outcome.errorOutput.contains(cli.path(forced)), "\(outcome)")
        #expect(cli.bytes("com.example.app.plist") == nil)
        #expect(try cli.run("write", "com.example.app", "name", "Ada", "--root", root).status == 0)
    }

    @Test("convert into a suite whose forced file holds a key it would change copies nothing")
    func convertIntoASuite() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let forcedDirectory = cli.scratch.appendingPathComponent("root/etc/storedkit/forced")
        try FileManager.default.createDirectory(at: forcedDirectory, withIntermediateDirectories: true)
        let forced = "root/etc/storedkit/forced/com.example.app.plist"
        try cli.run("write", forced, "volume", "0.3", "--double")
        try cli.run("write", "backup.plist", "volume", "0.9", "--double")
        try cli.run("write", "backup.plist", "name", "Ada")
        let root = cli.path("root")
        let outcome = try cli.run("convert", "backup.plist", "com.example.app", "--root", root)
        #expect(outcome.status == 7, "\(outcome)")
        #expect(outcome.errorOutput.contains("'volume' is forced by '\(cli.path(forced))'"), "\(outcome)")
        #expect(cli.bytes("com.example.app.plist") == nil)
        // Without the key the administrator forces, the copy goes ahead.
        try cli.run("delete", "backup.plist", "volume")
        #expect(try cli.run("convert", "backup.plist", "com.example.app", "--root", root).status == 0)
        #expect(try cli.run("read", "com.example.app", "--user").lines == ["name: \"Ada\""])
    }

    @Test("help lists status 7")
    func helpListsTheStatus() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(try cli.run("help").stdout.contains("  7  key forced by an administrator"))
    }

    /// The library stores a write of a key a higher layer hides and reports it
    /// (`StoreEvent.writeOverridden`): `write`, `rename` and `import` all say it, not `write` alone.
    @Test("write, rename and import of a key the environment hides: written, with a warning", arguments: storeNames)
    func hiddenWritesAreSaid(store: String) throws {
        let cli = try makeFixture(store)
        defer { cli.removeScratch() }
        let environment = ["MYAPP_TOTAL": "7", "MYAPP_NAME": "Bob"]
        let renamed = try cli.run(["rename", store, "count", "total", "--env-prefix", "MYAPP_"], environment: environment)
        #expect(renamed.status == 0, "\(renamed)")
        #expect(renamed.errorOutput.contains("'total' was written, but the environment variable MYAPP_TOTAL hides it"))
        let imported = try cli.run(
            ["import", store, "-", "--merge", "--env-prefix", "MYAPP_"], input: Data(#"{"name": "Cy", "own": 1}"#.utf8),
            environment: environment)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.errorOutput.contains("'name' was written, but the environment variable MYAPP_NAME hides it"))
        #expect(!imported.errorOutput.contains("'own'"), "\(imported)")
        #expect(try cli.run("read", store, "--user").lines == ["name: \"Cy\"", "own: 1", "total: 1", "volume: 0.8"])
    }

    /// `read` and `keys` show a key a layer holds; `delete` and `rename` of it, which change the
    /// user's values only, say where it comes from instead of that it does not exist.
    @Test("delete and rename of a key only a layer holds: status 1, naming the layer", arguments: storeNames)
    func layerOnlyKeyIsNamedWithItsLayer(store: String) throws {
        let cli = try makeFixture(store)
        defer { cli.removeScratch() }
        try cli.run("write", "defaults.plist", "font", "Serif")
        let layers = ["--forced", "forced.plist", "--defaults", "defaults.plist"]
        for command in [["delete", store, "font"], ["delete", store, "count", "font"], ["rename", store, "font", "face"]] {
            let outcome = try cli.run(command + layers)
            #expect(outcome.status == 1, "\(command): \(outcome)")
            #expect(
                outcome.errorOutput.contains("Key 'font' has no value of its own in '\(cli.path(store))'"), "\(outcome)")
            #expect(outcome.errorOutput.contains("defaults in '\(cli.path("defaults.plist"))'"), "\(outcome)")
        }
        #expect(try cli.run("read", store, "--user").lines == ["count: 1", "name: \"Ada\"", "volume: 0.8"])
        let missing = try cli.run(["delete", "missing.plist", "font"] + layers)
        #expect(missing.status == 1 && missing.errorOutput.contains("defaults in"), "\(missing)")
        // A key no layer holds is not found, as before.
        #expect(try cli.run(["delete", store, "nothing"] + layers).errorOutput.contains("Key 'nothing' not found"))
    }
}
