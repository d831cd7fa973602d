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

/// The plist side: a file another program wrote with both spellings keeps both through a rewrite.
@Suite("Plist keys equal only up to Unicode normalisation")
struct PlistEquivalentKeysTests {
    @Test(arguments: ["equivalent-keys.plist", "equivalent-keys.bplist"])
    func readsTheFirstKeepsTheOtherThroughARewriteAndSaysSo(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        try ForeignFileTests.bytes(name).write(to: url)
        let format: PlistFormat = name.hasSuffix(".bplist") ? .binary : .xml
        let store = try PreferenceStore(.plist(at: url, format: format), durability: .immediate)
        // plistlib sorts by code point, so the decomposed spelling comes first in the file.
        #expect(store.value(forKey: EquivalentKeysTests.composed, as: String.self) == "decomposed")
        #expect(store.keys.count == 2)
        let events = store.recentEvents.filter { if case .equivalentKeys = $0 { true } else { false } }
        #expect(events.count == 1)
        #expect(events.first.map { "\($0)".contains("\"caf\\u{E9}\"") } == true)

        store.set("after", forKey: "after")
        store.set("changed", forKey: EquivalentKeysTests.decomposed)
        var equivalentKeys = PlistEquivalentKeys()
        let rewritten = try PlistCodec.decode(Data(contentsOf: url), path: url.path, equivalentKeys: &equivalentKeys)
        guard case .dictionary(let root) = rewritten else {
            Issue.record("the rewritten file's root is \(rewritten.typeName)")
            return
        }
        #expect(root["after"] == .string("after"))
        #expect(root[EquivalentKeysTests.decomposed] == .string("changed"))
        let hidden = try #require(equivalentKeys.hiddenRootEntries.first)
        #expect(Array(hidden.key.utf8) == Array(EquivalentKeysTests.composed.utf8))
        #expect(hidden.value == .string("composed"))
        if format == .xml {
            let bytes = try Data(contentsOf: url)
            #expect(bytes.firstRange(of: Data(EquivalentKeysTests.composed.utf8)) != nil)
            #expect(bytes.firstRange(of: Data(EquivalentKeysTests.decomposed.utf8)) != nil)
        }
    }
}

/// A file with both spellings of a key: a write through either spelling is what every store that
/// opens the file afterwards reads, and a removal leaves no spelling behind. Before, an SQLite
/// write through the spelling reads did not show went to the hidden row (the write was lost to
/// every reader), and a removal let the hidden spelling show up in its place.
@Suite("Writing a key that a file holds in two spellings")
struct EquivalentKeyWriteTests {
    static let composed = EquivalentKeysTests.composed
    static let decomposed = EquivalentKeysTests.decomposed

    /// A file of `kind` with both spellings, and how to open it.
    static func fileWithBoth(_ kind: String, in directory: TemporaryDirectory) throws -> () throws -> PreferenceStore {
        switch kind {
        case "sqlite":
            try EquivalentKeysTests.sqliteStoreWithBoth(directory)
            return { try PreferenceStore(.sqlite(at: directory.database), durability: .immediate) }
        default:
            let url = directory.file("prefs.plist")
            try ForeignFileTests.bytes(kind == "xml" ? "equivalent-keys.plist" : "equivalent-keys.bplist").write(to: url)
            let format: PlistFormat = kind == "xml" ? .xml : .binary
            return { try PreferenceStore(.plist(at: url, format: format), durability: .immediate) }
        }
    }

    @Test(arguments: ["sqlite", "xml", "binary"])
    func aWriteThroughEitherSpellingIsWhatEveryReopenedStoreReads(_ kind: String) throws {
        let directory = try TemporaryDirectory()
        let open = try Self.fileWithBoth(kind, in: directory)
        for (value, spelling) in [(5, Self.composed), (6, Self.decomposed), (7, Self.composed)] {
            let store = try open()
            store.set(value, forKey: spelling)
            try store.flush()
            for reader in [Self.composed, Self.decomposed] {
                #expect(try open().value(forKey: reader, as: Int.self) == value, "\(kind): wrote \(value)")
            }
        }
        let store = try open()
        store.removeValue(forKey: Self.decomposed)
        try store.flush()
        let reopened = try open()
        #expect(reopened.value(forKey: Self.composed, as: String.self) == nil, "\(kind): a hidden spelling showed up")
        #expect(!reopened.keys.contains(Self.composed))
        #expect(!reopened.recentEvents.contains { if case .equivalentKeys = $0 { true } else { false } })
    }
}
