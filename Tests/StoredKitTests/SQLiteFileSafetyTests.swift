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
