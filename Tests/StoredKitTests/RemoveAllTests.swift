import Foundation
import Synchronization
import Testing

@testable import StoredKit

/// `removeAll()`: every stored value gone in one commit, every observer told.
@Suite("Removing every value")
struct RemoveAllTests {
    @Test(arguments: ["prefs.plist", "prefs.sqlite"])
    func removesEverythingInOneCommitAndTellsObservers(fileName: String) async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file(fileName)
        let store = try PreferenceStore(fileAt: url)
        store.set(1, forKey: "a")
        store.set("x", forKey: "b")
        try store.flush()
        store.register(defaults: ["a": 9])

        let changes = Recorder<Change>()
        let tokens = ["a", "b"].map { key in store.observe(key) { changes.append($0) } }
        store.removeAll()
        #expect(store.keys.isEmpty)
        #expect(store.value(forKey: "a", as: Int.self) == 9)  // registered defaults stay
        #expect(await changes.wait(forCount: 2))
        #expect(Set(changes.values.map(\.key)) == ["a", "b"])
        #expect(changes.values.allSatisfy { $0.newValue == nil && $0.origin == .local })
        try store.flush()
        #expect(try PreferenceStore(fileAt: url).keys.isEmpty)
        _ = tokens
    }

    @Test func onAnEmptyStoreNothingHappens() async {
        let store = PreferenceStore.inMemory()
        let changes = Recorder<Change>()
        let token = store.observe("after") { changes.append($0) }
        store.removeAll()
        store.set(1, forKey: "after")
        #expect(await changes.wait(forCount: 1))
        #expect(changes.values.map(\.key) == ["after"])
        _ = token
    }
}
