import Foundation
import Testing

@testable import StoredKit

@Suite("SQLite: other programs' databases and file modes")
struct SQLiteFileSafetyTests {
    @Test func anotherProgramsDatabaseIsRefusedAndLeftUnchanged() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("other.db")
        _ = try SQLiteBackendTests.shell(
            url, "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5);")
        let before = try Data(contentsOf: url)
        #expect {
            _ = try PreferenceStore(.sqlite(at: url))
        } throws: { error in
            "\(error)".contains("not a StoredKit database") && "\(error)".contains(url.path)
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))  // not switched to WAL
    }

    @Test func newStoreFileIsPrivate() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.sqlite")
        let store = try PreferenceStore(.sqlite(at: url))
        store.set(1, forKey: "a")
        try store.flush()
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}

@Suite("SQLite: a damaged schema")
struct SQLiteDamagedSchemaTests {
    /// A store file holding one value.
    func makeStore(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.database
        let store = try PreferenceStore(.sqlite(at: url))
        store.set("kept", forKey: "a")
        try store.flush()
        return url
    }

    /// Rewrites schema text the way a bit flip would, through SQLite's writable_schema.
    static func damageSchema(_ url: URL, objectType: String, replacing old: String, with new: String) throws {
        _ = try SQLiteBackendTests.shell(
            url,
            """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, '\(old)', '\(new)') WHERE type = '\(objectType)';
            PRAGMA writable_schema = OFF;
            """)
    }

    /// Each schema object's name and text, as the file keeps them.
    func schemaObjects(_ url: URL) throws -> [String: String] {
        let connection = try SQLiteConnection(path: url.path, readOnly: true)
        var objects: [String: String] = [:]
        try connection.withStatement(SQLiteSchema.listObjects) { statement in
            while try statement.step() { objects[statement.text(at: 0)] = statement.text(at: 1) }
        }
        return objects
    }

    @Test func aNewFileHoldsOurTriggersWordForWord() throws {
        // An open compares the triggers' text instead of compiling them; if the text SQLite keeps
        // differed from ours, every open would rebuild them (and fail on a read-only file).
        let directory = try TemporaryDirectory()
        let url = try makeStore(in: directory)
        let objects = try schemaObjects(url)
        #expect(SQLiteSchema.isCurrent(objects))
        #expect(objects.count == 2 + SQLiteSchema.triggers.count)
        // Opening it again changes no schema object (SQLite counts every change in schema_version).
        let before = try SQLiteBackendTests.shell(url, "PRAGMA schema_version")
        let reopened = try PreferenceStore(.sqlite(at: url))
        #expect(reopened.value(forKey: "a", as: String.self) == "kept")
        #expect(try SQLiteBackendTests.shell(url, "PRAGMA schema_version") == before)
    }

    @Test func aDamagedTriggerIsRebuiltAndTheDataKept() throws {
        let directory = try TemporaryDirectory()
        let url = try makeStore(in: directory)
        try Self.damageSchema(url, objectType: "trigger", replacing: "NEW.change_seq", with: "NEW.chinge_seq")
        #expect(!SQLiteSchema.isCurrent(try schemaObjects(url)))

        let reopened = try PreferenceStore(.sqlite(at: url))
        #expect(reopened.recentEvents.isEmpty)
        #expect(reopened.value(forKey: "a", as: String.self) == "kept")
        #expect(SQLiteSchema.isCurrent(try schemaObjects(url)))
        // The rebuilt trigger works: a row inserted by hand is stamped with a change sequence.
        _ = try SQLiteBackendTests.shell(url, "INSERT INTO preferences (key, type, value) VALUES ('hand', 'int', 5)")
        let sequence = try SQLiteBackendTests.shell(url, "SELECT change_seq FROM preferences WHERE key = 'hand'")
        #expect((Int(sequence.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0)
    }

    @Test func aDamagedTableIsQuarantinedAtOpenNotAtTheFirstWrite() throws {
        let directory = try TemporaryDirectory()
        let url = try makeStore(in: directory)
        // `updated_at` is written by every upsert but read by no query the open runs anyway.
        try Self.damageSchema(url, objectType: "table", replacing: "updated_at REAL", with: "updated_an REAL")
        let reopened = try PreferenceStore(.sqlite(at: url))
        guard case .quarantined(_, let movedTo, let reason) = reopened.recentEvents.first else {
            Issue.record("expected a quarantine event, got \(reopened.recentEvents)")
            return
        }
        #expect(reason.contains("damaged schema"))
        #expect(FileManager.default.fileExists(atPath: movedTo))
        reopened.set(1, forKey: "b")
        try reopened.flush()  // the fresh file takes writes
        #expect(reopened.value(forKey: "b", as: Int.self) == 1)
    }

    @Test func aDamagedTableFailsTheOpenWhenAskedTo() throws {
        let directory = try TemporaryDirectory()
        let url = try makeStore(in: directory)
        try Self.damageSchema(url, objectType: "table", replacing: "updated_at REAL", with: "updated_an REAL")
        #expect {
            _ = try PreferenceStore(.sqlite(at: url, corruption: .fail))
        } throws: { error in
            guard case StoreError.corruptFile(let path, let reason, nil) = error else { return false }
            return path == url.path && reason.contains("updated_at")
        }
    }
}
