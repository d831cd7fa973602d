import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

// The examples of "Migrations" (Sources/StoredKit/StoredKit.docc/MigratingPreferences.md).

struct SidebarV1: Codable, Equatable { var tabs: [String] }
struct SidebarV2: Codable, Equatable { var order: [String]; var hidden: [String] }

/// The article's migrations; `suite` is "com.example.app" in an app, a file in a test.
func exampleMigrations(suite: String) -> [Migration] {
    [
        // 1: bring over what the app kept in Foundation's UserDefaults (XML or binary plist).
        //    The old file is deleted only after this open's commit succeeded.
        Migration(version: 1, "import UserDefaults") { m in
            try m.importUserDefaults(suite: suite, removeSourceAfterCommit: true)
        },
        // 2: a key was renamed; fails clearly if "sidebar" already exists (unless overwrite: true).
        Migration(version: 2, "rename tabs") { m in
            try m.renameKey("tabs", to: "sidebar")
        },
        // 3: a Codable value changed shape.
        Migration(version: 3, "sidebar v2") { m in
            try m.transform("sidebar", from: SidebarV1.self, to: SidebarV2.self) { old in
                SidebarV2(order: old.tabs, hidden: [])
            }
            m.removeAll { key, _ in key.hasPrefix("legacy.") }
        },
    ]
}

@Suite("Migrations", .awaitsChanges)
struct MigrationsExamples {
    /// What an app kept in UserDefaults before it moved to StoredKit.
    func writeUserDefaultsFile(in directory: TemporaryDirectory) throws -> String {
        let suite = directory.file("com.example.app").path  // an absolute suite name names the file itself
        let old = try PreferenceStore(.plist(suite: suite))
        old.set(SidebarV1(tabs: ["home", "library"]), forKey: "tabs")
        old.set(true, forKey: "legacy.onboarded")
        try old.flush()
        return suite
    }

    @Test func migrationsRunOnceInOrder() throws {
        let directory = try TemporaryDirectory()
        let suite = try writeUserDefaultsFile(in: directory)
        let url = directory.file("prefs.sqlite")
        let store = try PreferenceStore(.sqlite(at: url), migrations: exampleMigrations(suite: suite))
        #expect(store.schemaVersion == 3)
        #expect(store.keys == ["sidebar"])
        #expect(store.value(forKey: "sidebar", as: SidebarV2.self) == SidebarV2(order: ["home", "library"], hidden: []))
        #expect(!FileManager.default.fileExists(atPath: suite + ".plist"))

        // The next open finds version 3 and runs nothing.
        store.set(SidebarV2(order: ["home"], hidden: []), forKey: "sidebar")
        try store.flush()
        let reopened = try PreferenceStore(.sqlite(at: url), migrations: exampleMigrations(suite: suite))
        #expect(reopened.value(forKey: "sidebar", as: SidebarV2.self)?.order == ["home"])
    }

    @Test func aFailingMigrationCommitsNothing() throws {
        struct NotYet: Error {}
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.sqlite")
        let store = try PreferenceStore(.sqlite(at: url))
        store.set(["home"], forKey: "tabs")
        try store.flush()
        let failing = [
            Migration(version: 1, "rename tabs") { m in try m.renameKey("tabs", to: "sidebar") },
            Migration(version: 2, "not ready") { _ in throw NotYet() },
        ]
        #expect {
            try PreferenceStore(.sqlite(at: url), migrations: failing)
        } throws: { error in
            guard case StoreError.migrationFailed(let version, let name, _) = error else { return false }
            return version == 2 && name == "not ready"
        }
        let reader = try PreferenceStore(.sqlite(at: url))
        #expect(reader.schemaVersion == 0)
        #expect(reader.keys == ["tabs"])
    }

    @Test func newerDataFailsOrOpensReadOnly() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.sqlite")
        let newer = [Migration(version: 1, "one") { _ in }, Migration(version: 2, "two") { _ in }]
        _ = try PreferenceStore(.sqlite(at: url), migrations: newer)  // written by a newer app
        let migrations = [Migration(version: 1, "one") { _ in }]
        #expect {
            try PreferenceStore(.sqlite(at: url), migrations: migrations)
        } throws: { error in
            guard case StoreError.newerSchemaVersion(found: 2, supported: 1) = error else { return false }
            return true
        }
        let store = try PreferenceStore(.sqlite(at: url), migrations: migrations, whenNewer: .openReadOnly)
        #expect(store.isReadOnly)
        store.set(1, forKey: "a")  // refused: memory unchanged
        #expect(!store.hasValue(forKey: "a"))
    }

    @Test func outOfOrderVersionsAreAProgrammerError() throws {
        let migrations = [Migration(version: 2, "two") { _ in }, Migration(version: 1, "one") { _ in }]
        #expect {
            try PreferenceStore(MemoryBackend(), migrations: migrations)
        } throws: { error in
            guard case StoreError.invalidMigrations = error else { return false }
            return true
        }
    }

    @Test func anotherProcessesMigrationReachesObserversAsMigration() async throws {
        let first = MemoryBackend(values: ["tabs": .array([.string("home")])])
        let app = try PreferenceStore(first)
        var changes = app.changes.makeAsyncIterator()
        _ = try PreferenceStore(
            MemoryBackend(sharing: first),
            migrations: [Migration(version: 1, "rename tabs") { m in try m.renameKey("tabs", to: "sidebar") }])
        let change = await changes.next()
        #expect(change?.origin == .migration)
    }
}
