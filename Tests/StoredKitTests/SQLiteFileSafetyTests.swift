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
    /// A store holding one value whose trigger text is then damaged.
    func makeDamagedStore(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.database
        do {
            let store = try PreferenceStore(.sqlite(at: url))
            store.set("kept", forKey: "a")
            try store.flush()
        }
        try damageSchema(url)
        return url
    }

    /// Damages a trigger's text the way a bit flip would, through SQLite's writable_schema.
    func damageSchema(_ url: URL) throws {
        _ = try SQLiteBackendTests.shell(
            url,
            """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, 'NEW.change_seq', 'NEW.chinge_seq') WHERE type = 'trigger';
            PRAGMA writable_schema = OFF;
            """)
    }

    @Test func damagedSchemaIsQuarantinedAtOpenNotAtTheFirstWrite() throws {
        let directory = try TemporaryDirectory()
        let url = try makeDamagedStore(in: directory)
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

    @Test func damagedSchemaFailsTheOpenWhenAskedTo() throws {
        let directory = try TemporaryDirectory()
        let url = try makeDamagedStore(in: directory)
        #expect {
            _ = try PreferenceStore(.sqlite(at: url, corruption: .fail))
        } throws: { error in
            guard case StoreError.corruptFile(let path, let reason, nil) = error else { return false }
            return path == url.path && reason.contains("chinge_seq")
        }
    }
}
