import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

// The examples of "Durability and crash safety" (Sources/StoredKit/StoredKit.docc/DurabilityAndCrashSafety.md).

@Suite("Durability and crash safety")
struct DurabilityExamples {
    @Test func anImmediateWriteIsInTheFileWhenSetReturns() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.sqlite")
        let store = try PreferenceStore(.sqlite(at: url), durability: .immediate)
        store.set(1, forKey: "a")  // on disk (fsynced) when this returns
        let reader = try PreferenceStore(.sqlite(at: url))
        #expect(reader.value(forKey: "a", as: Int.self) == 1)
        withExtendedLifetime(store) {}
    }

    @Test func aDeferredWriteIsInTheFileAfterFlush() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        let store = try PreferenceStore(.plist(at: url))
        store.set(1, forKey: "a")
        try store.flush()  // everything written so far is on disk
        let reader = try PreferenceStore(.plist(at: url))
        #expect(reader.value(forKey: "a", as: Int.self) == 1)
    }

    @Test func aReleasedStoreSavesItsLastWrites() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.sqlite")
        do {
            let store = try PreferenceStore(.sqlite(at: url))
            store.set(2, forKey: "b")
        }  // released: its pending writes are committed
        let reader = try PreferenceStore(.sqlite(at: url))
        #expect(reader.value(forKey: "b", as: Int.self) == 2)
    }

    @Test func aCorruptFileIsMovedAsideAndReported() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        try Data("<plist><dict><key>a</key>".utf8).write(to: url)
        let store = try PreferenceStore(.plist(at: url))
        #expect(store.keys.isEmpty)
        let quarantined = store.recentEvents.contains { event in
            if case .quarantined = event { true } else { false }
        }
        #expect(quarantined)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(names.contains { $0.hasPrefix("prefs.plist.corrupt-") })
    }

    @Test func orTheOpenFailsAndLeavesTheFileAlone() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        let damaged = Data("<plist><dict><key>a</key>".utf8)
        try damaged.write(to: url)
        #expect {
            try PreferenceStore(.plist(at: url, corruption: .fail))
        } throws: { error in
            guard case StoreError.corruptFile(let path, _, nil) = error else { return false }
            return path == url.path
        }
        #expect(try Data(contentsOf: url) == damaged)
    }

    /// "Calls made inside a transaction body": a nested update joins the outer transaction.
    @Test func aNestedUpdateJoinsTheOuterTransaction() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.sqlite")
        let store = try PreferenceStore(.sqlite(at: url))
        try store.transaction { tx in
            tx.set(1, forKey: "a")
            try store.update(.launchCount) { $0 += 1 }  // joins: committed with "a"
            #expect(throws: StoreError.self) { try store.flush() }  // insideTransaction
        }
        let reader = try PreferenceStore(.sqlite(at: url))
        #expect(reader.value(forKey: "a", as: Int.self) == 1)
        #expect(reader[.launchCount] == 1)
    }
}
