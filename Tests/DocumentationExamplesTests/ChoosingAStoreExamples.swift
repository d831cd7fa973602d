import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

// The examples of "Choosing a store" (Sources/StoredKit/StoredKit.docc/ChoosingAStore.md).

@Suite("Choosing a store", .awaitsChanges)
struct ChoosingAStoreExamples {
    @Test func everyFileStoreOpensTheSameWay() throws {
        let directory = try TemporaryDirectory()
        let sqlite = try PreferenceStore(.sqlite(at: directory.file("prefs.sqlite")))
        let xml = try PreferenceStore(.plist(at: directory.file("prefs.plist")))
        let binary = try PreferenceStore(.plist(at: directory.file("prefs-binary.plist"), format: .binary))
        let suite = try PreferenceStore(.plist(suite: directory.file("com.example.app").path))
        let memory = PreferenceStore.inMemory()
        for store in [sqlite, xml, binary, suite, memory] {
            store[.volume] = 0.8
            try store.flush()
            #expect(store[.volume] == 0.8)
        }
        #expect(memory.backend.location == "memory")
        #expect((binary.backend as? PlistBackend)?.format == .binary)
    }

    @Test func aSuiteIsTheFileUserDefaultsUses() throws {
        let backend = PlistBackend.plist(suite: "com.example.app")
        #expect(backend.path.hasSuffix("/com.example.app.plist"))
    }

    @Test func fileAtPicksTheBackendFromTheName() throws {
        let directory = try TemporaryDirectory()
        let sqlite = try PreferenceStore(fileAt: directory.file("prefs.sqlite"))
        let plist = try PreferenceStore(fileAt: directory.file("prefs.plist"))
        #expect(sqlite.backend is SQLiteBackend)
        #expect(plist.backend is PlistBackend)
        #expect(StoreFileFormat(detecting: directory.file("prefs.db")) == .sqlite)
    }

    @Test func aSharingMemoryBackendActsAsASecondProcess() async throws {
        let first = MemoryBackend()
        let a = try PreferenceStore(first)
        let b = try PreferenceStore(MemoryBackend(sharing: first))
        var changes = b.changes.makeAsyncIterator()
        a.set(1, forKey: "n")
        try a.flush()
        let change = await changes.next()
        #expect(change?.key == "n")
        #expect(change?.origin == .external)
        #expect(b.value(forKey: "n", as: Int.self) == 1)
    }
}
