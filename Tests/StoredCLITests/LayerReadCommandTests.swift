import Foundation
import Testing

/// A store with one key in every layer, built from real files with `stored` itself: forced.plist
/// (volume 0.3), defaults a.plist (volume 0.5, theme, font) and b.plist (font, size), the user's
/// store (volume 0.8, name "Ada", own), and `MYAPP_NAME=Bob` in the environment.
struct LayeredFixture {
    let cli: StoredProcess
    let store: String
    let environment = ["MYAPP_NAME": "Bob", "MYAPP_UNUSED": "1"]

    init(store: String) throws {
        cli = try StoredProcess()
        self.store = store
        let writes: [[String]] = [
            ["forced.plist", "volume", "0.3", "--double"],
            ["a.plist", "volume", "0.5", "--double"], ["a.plist", "theme", "dark"], ["a.plist", "font", "A"],
            ["b.plist", "font", "B"], ["b.plist", "size", "3", "--int"],
            [store, "volume", "0.8", "--double"], [store, "name", "Ada"], [store, "own", "true", "--bool"],
        ]
        for write in writes { try cli.run(["write"] + write) }
    }

    /// Every layer option: forced, defaults a then b, the environment.
    var layerOptions: [String] {
        ["--forced", "forced.plist", "--defaults", "a.plist", "--defaults", "b.plist", "--env-prefix", "MYAPP_"]
    }

    func read(_ arguments: String...) throws -> Outcome {
        try cli.run(["read", store] + arguments + layerOptions, environment: environment)
    }
}

@Suite("read through layers: --source, --user, --default")
struct LayerReadCommandTests {
    @Test("read KEY --source names the layer of each key, and the file of a file layer", arguments: storeNames)
    func sourceOfEachKey(store: String) throws {
        let fixture = try LayeredFixture(store: store)
        let cli = fixture.cli
        defer { cli.removeScratch() }
        let expected = [
            "volume": "forced:\(cli.path("forced.plist"))\t0.3",
            "name": "environment:MYAPP_NAME\t\"Bob\"",
            "own": "user:\(cli.path(store))\ttrue",
            "theme": "defaults:\(cli.path("a.plist"))\t\"dark\"",
            "font": "defaults:\(cli.path("a.plist"))\t\"A\"",  // the first defaults file given wins
            "size": "defaults:\(cli.path("b.plist"))\t3",
        ]
        for (key, line) in expected {
            let outcome = try fixture.read(key, "--source")
            #expect(outcome.status == 0, "\(key): \(outcome)")
            #expect(outcome.stdout == line + "\n", "\(key)")
        }
        // Without the layers that held them, the next one down answers.
        #expect(try cli.run("read", store, "volume", "--source").stdout == "user:\(cli.path(store))\t0.8\n")
        #expect(
            try cli.run("read", store, "volume", "--source", "--defaults", "b.plist", "--defaults", "a.plist").stdout
                == "user:\(cli.path(store))\t0.8\n")
        #expect(try cli.run("read", store, "font", "--defaults", "b.plist", "--defaults", "a.plist").stdout == "\"B\"\n")
        #expect(try cli.run("read", store, "name", "--source").stdout == "user:\(cli.path(store))\t\"Ada\"\n")
    }

    @Test("read --source lists every key with its layer; unread environment variables go to stderr", arguments: storeNames)
    func sourceOfWholeStore(store: String) throws {
        let fixture = try LayeredFixture(store: store)
        let cli = fixture.cli
        defer { cli.removeScratch() }
        let outcome = try fixture.read("--source")
        #expect(outcome.status == 0, "\(outcome)")
        #expect(
            outcome.lines == [
                "defaults:\(cli.path("a.plist"))\tfont: \"A\"",
                "environment:MYAPP_NAME\tname: \"Bob\"",
                "user:\(cli.path(store))\town: true",
                "defaults:\(cli.path("b.plist"))\tsize: 3",
                "defaults:\(cli.path("a.plist"))\ttheme: \"dark\"",
                "forced:\(cli.path("forced.plist"))\tvolume: 0.3",
            ])
        #expect(outcome.errorOutput.contains("MYAPP_UNUSED"), "\(outcome)")
        #expect(!outcome.errorOutput.contains("MYAPP_NAME"), "\(outcome)")
        // Without --source, the effective values in read's usual form.
        #expect(try fixture.read("volume").stdout == "0.3\n")
        #expect(try fixture.read().lines.contains("theme: \"dark\""))
    }

    @Test("read --source --json gives value, layer and location", arguments: storeNames)
    func sourceAsJSON(store: String) throws {
        let fixture = try LayeredFixture(store: store)
        let cli = fixture.cli
        defer { cli.removeScratch() }
        let one = try #require(
            try JSONSerialization.jsonObject(with: fixture.read("volume", "--source", "--json").output) as? [String: Any])
        #expect(one["value"] as? Double == 0.3)
        #expect(one["layer"] as? String == "forced")
        #expect(one["location"] as? String == cli.path("forced.plist"))
        let all = try #require(
            try JSONSerialization.jsonObject(with: fixture.read("--source", "--json").output) as? [String: [String: Any]])
        #expect(all["name"]?["layer"] as? String == "environment")
        #expect(all["name"]?["location"] as? String == "MYAPP_NAME")
        #expect(all["size"]?["value"] as? Int == 3)
        #expect(all["own"]?["location"] as? String == cli.path(store))
    }

    @Test("--user prints the user's own values; --default what a reset would leave", arguments: storeNames)
    func userAndDefault(store: String) throws {
        let fixture = try LayeredFixture(store: store)
        let cli = fixture.cli
        defer { cli.removeScratch() }
        #expect(try fixture.read("volume", "--user").stdout == "0.8\n")
        #expect(try fixture.read("volume", "--user", "--source").stdout == "user:\(cli.path(store))\t0.8\n")
        #expect(try fixture.read("--user").lines == ["name: \"Ada\"", "own: true", "volume: 0.8"])
        #expect(try fixture.read("theme", "--user").status == 1)
        // A reset leaves the forced value, the environment's, or the defaults'.
        #expect(try fixture.read("volume", "--default", "--source").stdout == "forced:\(cli.path("forced.plist"))\t0.3\n")
        #expect(try fixture.read("name", "--default").stdout == "\"Bob\"\n")
        let withoutForced = try cli.run(["read", store, "volume", "--default", "--defaults", "a.plist"])
        #expect(withoutForced.stdout == "0.5\n", "\(withoutForced)")
        let gone = try fixture.read("own", "--default")
        #expect(gone.status == 1)
        #expect(gone.errorOutput.contains("a reset leaves no value"), "\(gone)")
        #expect(try fixture.read("--default").lines == ["font: \"A\"", "size: 3", "theme: \"dark\"", "volume: 0.3"])
        let both = try fixture.read("volume", "--user", "--default")
        #expect(both.status == 2)
        #expect(both.errorOutput.contains("--user or --default"), "\(both)")
    }

    @Test("keys, find and read-type read through the layers too; keys --user lists the store's own", arguments: storeNames)
    func keysFindAndReadType(store: String) throws {
        let fixture = try LayeredFixture(store: store)
        let cli = fixture.cli
        defer { cli.removeScratch() }
        func run(_ arguments: String...) throws -> Outcome {
            try cli.run(arguments + fixture.layerOptions, environment: fixture.environment)
        }
        #expect(try run("keys", store).lines == ["font", "name", "own", "size", "theme", "volume"])
        #expect(try run("keys", store, "--user").lines == ["name", "own", "volume"])
        #expect(try run("read-type", store, "size").stdout == "integer\n")
        #expect(try run("read-type", store, "theme").stdout == "string\n")
        #expect(try run("find", store, "dark").stdout == "theme: \"dark\"\n")
        #expect(try run("find", store, "Bob").stdout == "name: \"Bob\"\n")
        #expect(try cli.run("find", store, "dark").status == 1)  // without the layers, no such value
    }

    @Test("a suite name reads the standard files of PreferenceStore.standard, never stored's own arguments")
    func suiteStandardFiles() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let suite = "com.example.app"
        let root = cli.scratch.appendingPathComponent("root")
        for directory in ["etc/storedkit/forced", "etc/xdg-one", "etc/xdg-two", "usr/local/etc"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(directory), withIntermediateDirectories: true)
        }
        let file = suite + ".plist"
        let forced = "root/etc/storedkit/forced/" + file
        try cli.run("write", forced, "volume", "0.1", "--double")
        try cli.run("write", "root/etc/xdg-two/" + file, "theme", "dark")
        try cli.run("write", "root/usr/local/etc/" + file, "theme", "light")
        try cli.run("write", "root/usr/local/etc/" + file, "font", "Any")
        try cli.run("write", suite, "volume", "0.8", "--double")
        let environment = ["XDG_CONFIG_DIRS": "/etc/xdg-one:/etc/xdg-two"]
        let read = try cli.run(["read", suite, "--source", "--root", root.path], environment: environment)
        #expect(
            read.lines == [
                "defaults:\(cli.path("root/usr/local/etc/" + file))\tfont: \"Any\"",
                "defaults:\(cli.path("root/etc/xdg-two/" + file))\ttheme: \"dark\"",
                "forced:\(cli.path(forced))\tvolume: 0.1",
            ], "\(read)")
        let layers = try cli.run(["layers", suite, "--root", root.path], environment: environment)
        #expect(
            layers.lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).prefix(2).joined(separator: " ") } == [
                "forced \(cli.path(forced))", "user \(cli.path(file))", "defaults \(cli.path("root/etc/xdg-one/" + file))",
                "defaults \(cli.path("root/etc/xdg-two/" + file))", "defaults \(cli.path("root/usr/local/etc/" + file))",
            ], "\(layers)")
        // Exactly those five: stored's own command line and environment are not the app's.
        #expect(!layers.stdout.contains("arguments") && !layers.stdout.contains("environment"), "\(layers)")
        let misplaced = try cli.run("read", "prefs.plist", "--root", root.path)
        #expect(misplaced.status == 2)
        #expect(misplaced.errorOutput.contains("--root"), "\(misplaced)")
    }

    /// An app whose store does not exist yet reads its layers' values (issue 41): so do `read`,
    /// `read-type`, `keys`, `find` and `export --effective`, creating nothing. With no layer value
    /// at all, the missing store is still the answer (status 5); `--user` reads the store alone.
    @Test("a store that does not exist reads as its layers, and is not created", arguments: storeNames)
    func missingStoreReadsItsLayers(store: String) throws {
        let fixture = try LayeredFixture(store: store)
        let cli = fixture.cli
        defer { cli.removeScratch() }
        let missing = "missing." + (store as NSString).pathExtension
        func run(_ arguments: String...) throws -> Outcome {
            try cli.run(
                Array(arguments.prefix(1)) + [missing] + arguments.dropFirst() + fixture.layerOptions,
                environment: fixture.environment)
        }
        let whole = try run("read")
        #expect(whole.status == 0, "\(whole)")
        #expect(whole.lines == ["font: \"A\"", "size: 3", "theme: \"dark\"", "volume: 0.3"], "\(whole)")
        #expect(try run("read", "name").stdout == "\"Bob\"\n")
        #expect(try run("read", "volume", "--source").stdout == "forced:\(cli.path("forced.plist"))\t0.3\n")
        #expect(try run("read-type", "size").stdout == "integer\n")
        #expect(try run("keys").lines == ["font", "size", "theme", "volume"])
        #expect(try run("find", "dark").lines == ["theme: \"dark\""])
        #expect(try run("export", "out.json", "--effective").status == 0)
        #expect(cli.bytes("out.json") != nil)
        #expect(try run("read", "own").status == 1)
        #expect(try run("read", "--user").status == 5)
        #expect(cli.bytes(missing) == nil, "reading created the store")
        // No layer holds anything: the missing store is the answer, as before.
        let empty = try cli.run("read", missing, "--defaults", "none.plist")
        #expect(empty.status == 5, "\(empty)")
        #expect(cli.bytes(missing) == nil)
    }
}
