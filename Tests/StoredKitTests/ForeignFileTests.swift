import Foundation
import Testing

@testable import StoredKit

/// Property lists written by other programs (the corpus in `ForeignFiles/`, made by its
/// `make-corpus.py` with Python's plistlib): where Foundation and plistlib both read a file,
/// StoredKit reads the same values; where both reject it, StoredKit rejects it clearly and
/// changes nothing; a valid file holding what StoredKit cannot store is refused as intact.
@Suite("Property lists from other programs")
struct ForeignFileTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "ForeignFiles")

    static func bytes(_ name: String) throws -> Data {
        try Data(contentsOf: corpus.appending(path: name))
    }

    static let readable: [(String, StoredValue)] = [
        ("latin1-declared.plist", .dictionary(["name": .string("Ã¤")])),
        ("latin1-label.plist", .dictionary(["name": .string("Küche")])),
        ("ascii-declared.plist", .dictionary(["name": .string("plain")])),
        ("pi-in-dict.plist", .dictionary(["a": .int(1)])),
        ("pi-in-array.plist", .array([.int(1)])),
        ("pi-in-string.plist", .string("ab")),
        ("deep-200.plist", deep(200)), ("deep-200.bplist", deep(200)),
        ("deep-512.plist", deep(512)), ("deep-512.bplist", deep(512)),
    ]

    /// What `make-corpus.py`'s `nested(depth)` writes: 1 inside `depth` arrays, beside another key.
    static func deep(_ depth: Int) -> StoredValue {
        .dictionary(["deep": DeepValue.arrays(depth, innermost: .int(1)), "other": .string("kept")])
    }

    @Test(arguments: readable.map(\.0))
    func readsWhatBothReferencesRead(_ name: String) throws {
        let expected = try #require(Self.readable.first { $0.0 == name }).1
        #expect(try PlistCodec.decode(Self.bytes(name), path: name) == expected)
    }

    /// Issue 32, item 6: a plistlib file with a value 200 deep was called corrupt and moved aside.
    /// Opened as a store on a thread with a 256 KiB stack, each deep file reads exactly.
    @Test(arguments: ["deep-200.plist", "deep-200.bplist", "deep-512.plist", "deep-512.bplist"])
    func deepFilesOpenAsStoresOnASmallStack(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        let original = try Self.bytes(name)
        try original.write(to: url)
        let depth = Int(name.dropFirst(5).prefix(3)) ?? 0
        let read = onSmallStack(256 * 1024) { () -> [StoredValue?] in
            guard let store = try? PreferenceStore(.plist(at: url)) else { return [] }
            return [store.storedValue(forKey: "deep"), store.storedValue(forKey: "other")]
        }
        #expect(read == [DeepValue.arrays(depth, innermost: .int(1)), .string("kept")])
        #expect(try Data(contentsOf: url) == original)
        #expect(try directory.names() == ["prefs.plist"])
    }

    @Test(arguments: [
        ("ascii-high-byte.plist", "declares encoding 'US-ASCII'"),
        ("bogus-doctype.plist", "unexpected declaration '<!foobar plist>'"),
        ("xml-declaration-late.plist", "XML declaration not at the start"),
        ("real-hex.plist", "invalid real '0x10'"),
        ("unknown-encoding.plist", "unknown character encoding 'foobar'"),
    ])
    func rejectsWhatBothReferencesReject(_ name: String, _ reason: String) throws {
        #expect {
            try PlistCodec.decode(Self.bytes(name), path: name)
        } throws: { error in
            guard case StoreError.corruptFile(_, let found, _) = error else { return false }
            return found.contains(reason)
        }
    }

    @Test(arguments: [
        ("windows-1252.plist", "the character encoding 'windows-1252'"),
        ("uid.bplist", "a UID"),
        ("integer-beyond-64-bits.plist", "an integer beyond 64 bits, '1180591620717411303424'"),
        ("deep-600.plist", "nested deeper than"),
        ("deep-600.bplist", "nested deeper than"),
    ])
    func refusesValidFilesItCannotHoldAsIntact(_ name: String, _ what: String) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        let original = try Self.bytes(name)
        try original.write(to: url)
        // The default policy quarantines corrupt files; an intact file must not be moved aside.
        #expect {
            _ = try PreferenceStore(.plist(at: url))
        } throws: { error in
            guard case StoreError.unsupportedFile(let path, let reason, _) = error else { return false }
            let message = "\(error)"
            return path == url.path && reason.contains(what) && message.contains("intact") && !message.contains("corrupt")
        }
        #expect(try Data(contentsOf: url) == original)
        #expect(try directory.names() == ["prefs.plist"])
    }

    @Test func anEmptyFileOpensAsAnEmptyStoreAndGetsARealOneAtTheFirstWrite() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        try Self.bytes("empty.plist").write(to: url)
        let store = try PreferenceStore(.plist(at: url), durability: .immediate)
        #expect(store.keys.isEmpty)
        #expect(store.recentEvents.isEmpty)
        store.set(1, forKey: "a")
        #expect(try PlistCodec.decode(Data(contentsOf: url), path: url.path) == .dictionary(["a": .int(1)]))
    }
}
