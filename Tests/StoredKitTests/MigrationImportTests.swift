import Foundation
import Testing

@testable import StoredKit

@Suite("Migration importers")
struct MigrationImportTests {
    /// Writes a real UserDefaults file with Foundation. An absolute suite name makes Foundation
    /// write `<suite>.plist` at that path, which keeps the file inside the test's directory.
    static func writeUserDefaults(suite: String) throws -> URL {
        let defaults = try #require(UserDefaults(suiteName: suite))
        defaults.set(3, forKey: "count")
        defaults.set(true, forKey: "flag")
        defaults.set("Ada", forKey: "name")
        defaults.set(0.25, forKey: "volume")
        defaults.set(["home", "search"], forKey: "tabs")
        defaults.set(["width": 240.5], forKey: "window")
        defaults.set(Data([1, 2, 3]), forKey: "token")
        defaults.set(Date(timeIntervalSince1970: 1_000_000), forKey: "firstLaunch")
        #expect(defaults.synchronize())
        let file = PlistBackend.fileURL(forSuite: suite)
        #expect(FileManager.default.fileExists(atPath: file.path))
        return file
    }

    static let expectedValues: [String: StoredValue] = [
        "count": .int(3),
        "flag": .bool(true),
        "name": .string("Ada"),
        "volume": .double(0.25),
        "tabs": .array([.string("home"), .string("search")]),
        "window": .dictionary(["width": .double(240.5)]),
        "token": .data(Data([1, 2, 3])),
        "firstLaunch": .date(Date(timeIntervalSince1970: 1_000_000)),
    ]

    @Test(arguments: BackendKind.allCases)
    func importsARealUserDefaultsFileAndRemovesItAfterTheCommit(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        let suite = fixture.directory.file("legacy-defaults").path
        let file = try Self.writeUserDefaults(suite: suite)
        let store = try fixture.open([
            Migration(version: 1, "import UserDefaults") { m in
                let imported = try m.importUserDefaults(suite: suite, removeSourceAfterCommit: true)
                #expect(imported == Self.expectedValues.keys.sorted())
            }
        ])
        #expect(store.dictionaryRepresentation() == Self.expectedValues)
        #expect(store.value(forKey: "count", as: Int.self) == 3)
        #expect(store.value(forKey: "tabs", as: [String].self) == ["home", "search"])
        #expect(try fixture.stored().values == Self.expectedValues)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func importsABinaryUserDefaultsFile() throws {
        let fixture = try MigrationFixture(.sqlite)
        let suite = fixture.directory.file("binary-defaults").path
        let file = try Self.writeUserDefaults(suite: suite)
        let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: file), format: nil)
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: file)
        let store = try fixture.open([
            Migration(version: 1, "import") { m in try m.importUserDefaults(suite: suite) }
        ])
        #expect(store.dictionaryRepresentation() == Self.expectedValues)
        #expect(FileManager.default.fileExists(atPath: file.path))  // not asked to remove it
    }

    @Test(arguments: BackendKind.allCases)
    func importNeverOverwritesAndRunningItTwiceIsHarmless(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["name": .string("Grace")])
        let suite = fixture.directory.file("twice").path
        _ = try Self.writeUserDefaults(suite: suite)
        let store = try fixture.open([
            Migration(version: 1, "import") { m in
                let first = try m.importUserDefaults(suite: suite, keys: ["name", "count", "absent"])
                #expect(first == ["count"])  // "name" already existed, "absent" is not in the file
                m.set(4, forKey: "count")
                let second = try m.importUserDefaults(suite: suite, keys: ["name", "count"])
                #expect(second.isEmpty)
            }
        ])
        #expect(store.dictionaryRepresentation() == ["name": .string("Grace"), "count": .int(4)])
    }

    @Test func removingSelectedKeysKeepsTheRestOfTheSuite() throws {
        let fixture = try MigrationFixture(.plist)
        let suite = fixture.directory.file("partial").path
        let file = try Self.writeUserDefaults(suite: suite)
        _ = try fixture.open([
            Migration(version: 1, "import two keys") { m in
                try m.importUserDefaults(suite: suite, keys: ["count", "flag"], removeSourceAfterCommit: true)
            }
        ])
        var remaining = Self.expectedValues
        remaining["count"] = nil
        remaining["flag"] = nil
        #expect(try PlistBackend(at: file).load().values == remaining)
    }

    @Test(arguments: BackendKind.allCases)
    func aFailedMigrationLeavesTheSourceFileInPlace(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        let suite = fixture.directory.file("kept").path
        let file = try Self.writeUserDefaults(suite: suite)
        let sourceBefore = try Data(contentsOf: file)
        let importing = Migration(version: 1, "import") { m in
            try m.importUserDefaults(suite: suite, removeSourceAfterCommit: true)
        }
        let failing = Migration(version: 2, "fails") { _ in throw MigrationRefused() }
        #expect(throws: StoreError.self) { try fixture.open([importing, failing]) }
        #expect(try Data(contentsOf: file) == sourceBefore)
        #expect(try fixture.stored().values.isEmpty)

        _ = try fixture.open([importing])  // the retry imports and only then removes the file
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(try fixture.stored().values == Self.expectedValues)
    }

    @Test func missingSuiteImportsNothingAndCorruptSuiteFailsTheMigration() throws {
        let fixture = try MigrationFixture(.memory)
        let missing = fixture.directory.file("missing").path
        let store = try fixture.open([
            Migration(version: 1, "import") { m in
                let imported = try m.importUserDefaults(suite: missing, removeSourceAfterCommit: true)
                #expect(imported.isEmpty)
            }
        ])
        #expect(store.schemaVersion == 1)

        let corrupt = fixture.directory.file("corrupt").path
        try Data("<plist><dict><key>a".utf8).write(to: URL(fileURLWithPath: corrupt + ".plist"))
        var thrown: (any Error)?
        do {
            _ = try fixture.open([
                Migration(version: 1, "import") { _ in },
                Migration(version: 2, "import corrupt") { m in try m.importUserDefaults(suite: corrupt) },
            ])
        } catch { thrown = error }
        let failure = try #require(thrown.flatMap(migrationFailure))
        guard case StoreError.corruptFile(let path, _, let quarantinedAt) = failure.underlying else {
            Issue.record("expected corruptFile, got \(failure.underlying)")
            return
        }
        #expect(path == corrupt + ".plist")
        #expect(quarantinedAt == nil)  // the source is never moved aside
        #expect(FileManager.default.fileExists(atPath: corrupt + ".plist"))
    }

    @Test(arguments: BackendKind.allCases)
    func importsAnotherStoreAndRemovesItsKeysAfterTheCommit(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        let oldFile = fixture.directory.file("old.plist")
        let old = try PreferenceStore(.plist(at: oldFile), durability: .immediate)
        old.set(0.8, forKey: "volume")
        old.set("dark", forKey: "theme")
        old.set("keep me", forKey: "unrelated")
        let store = try fixture.open([
            Migration(version: 1, "move to new store") { m in
                try m.importStore(old, keys: ["volume", "theme"], removeSourceKeysAfterCommit: true)
            }
        ])
        #expect(store.dictionaryRepresentation() == ["volume": .double(0.8), "theme": .string("dark")])
        #expect(old.keys == ["unrelated"])
        #expect(try PlistBackend(at: oldFile).load().values == ["unrelated": .string("keep me")])
    }

    @Test func importsABackendPlistToSQLite() throws {
        let fixture = try MigrationFixture(.sqlite)
        let oldFile = fixture.directory.file("old.plist")
        let source = PlistBackend(at: oldFile)
        _ = try source.commit(BackendChanges(values: ["a": .int(1), "b": .int(2)]))
        try fixture.seed(["b": .int(20)])
        let store = try fixture.open([
            Migration(version: 1, "plist to SQLite") { m in
                let imported = try m.importStore(PlistBackend(at: oldFile), removeSourceKeysAfterCommit: true)
                #expect(imported == ["a"])
            }
        ])
        #expect(store.dictionaryRepresentation() == ["a": .int(1), "b": .int(20)])
        #expect(try source.load().values.isEmpty)
    }
}
