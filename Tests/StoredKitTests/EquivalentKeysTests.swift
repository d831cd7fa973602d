import Foundation
import Testing

@testable import StoredKit

/// Keys that differ only in Unicode normalisation are one key to Swift but two to a file written by
/// another program: reads see the first in the file's order, the other is kept, an event names both.
@Suite("Keys equal only up to Unicode normalisation")
struct EquivalentKeysTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// An SQLite store with both spellings as rows, as another program (or `sqlite3`) writes them.
    static func sqliteStoreWithBoth(_ directory: TemporaryDirectory) throws {
        _ = try PreferenceStore(.sqlite(at: directory.database), durability: .immediate)
        // Hex literals, so the shell's text handling cannot normalise anything.
        let nfc = Array(composed.utf8).map { String(format: "%02X", $0) }.joined()
        let nfd = Array(decomposed.utf8).map { String(format: "%02X", $0) }.joined()
        _ = try SQLiteBackendTests.shell(
            directory.database,
            "INSERT INTO preferences (key, type, value) VALUES (CAST(X'\(nfd)' AS TEXT), 'string', 'decomposed'), "
                + "(CAST(X'\(nfc)' AS TEXT), 'string', 'composed')")
    }

    @Test func sqliteReadsTheFirstRowKeepsBothAndSaysSo() throws {
        let directory = try TemporaryDirectory()
        try Self.sqliteStoreWithBoth(directory)
        let store = try PreferenceStore(.sqlite(at: directory.database), durability: .immediate)
        // Rows are in key order by bytes: "cafe\u{301}" (…65 CC 81) sorts before "caf\u{E9}" (…C3 A9).
        #expect(store.value(forKey: Self.composed, as: String.self) == "decomposed")
        let event = try #require(
            store.recentEvents.first { if case .equivalentKeys = $0 { true } else { false } })
        #expect("\(event)".contains("\"cafe\\u{301}\"") && "\(event)".contains("\"caf\\u{E9}\""))
        store.set(1, forKey: "other")
        let rows = try SQLiteBackendTests.shell(directory.database, "SELECT hex(key), value FROM preferences ORDER BY key")
        #expect(rows.contains("636166C3A9|composed") && rows.contains("63616665CC81|decomposed"))
    }
}
