import Foundation
import Testing

@testable import StoredKit

@Suite("PreferenceStore: reading and writing", .awaitsChanges)
struct PreferenceStoreTests {
    @Test func setReadRemove() {
        let store = PreferenceStore.inMemory()
        #expect(store.value(forKey: "count", as: Int.self) == nil)
        store.set(3, forKey: "count")
        #expect(store.value(forKey: "count", as: Int.self) == 3)
        #expect(store.keys == ["count"])
        store.removeValue(forKey: "count")
        #expect(store.value(forKey: "count", as: Int.self) == nil)
        #expect(store.keys.isEmpty)
    }

    @Test func typedKeysWithLeadingDot() {
        let store = PreferenceStore.inMemory()
        #expect(store[.volume] == 0.5)
        #expect(!store.hasValue(for: .volume))
        store[.volume] = 0.8
        #expect(store[.volume] == 0.8)
        #expect(store.hasValue(for: .volume))
        store[.launchCount] += 2
        #expect(store[.launchCount] == 2)
        #expect(store[.theme] == .dark)
        store[.theme] = .light
        #expect(store.storedValue(forKey: "theme") == .string("light"))
    }

    @Test func optionalKeyStoresNothingForNil() {
        let store = PreferenceStore.inMemory()
        #expect(store[.nickname] == nil)
        store[.nickname] = "Ada"
        #expect(store.storedValue(forKey: "nickname") == .string("Ada"))
        store[.nickname] = nil
        #expect(store.storedValue(forKey: "nickname") == nil)
        #expect(store.keys.isEmpty)
    }

    @Test func registeredDefaultsAreReadButNotStored() {
        let store = PreferenceStore.inMemory()
        store.register(defaults: ["volume": 0.25, "name": "Guest"])
        #expect(store[.volume] == 0.25)
        #expect(store.value(forKey: "name", as: String.self) == "Guest")
        #expect(store.keys.isEmpty)
        store[.volume] = 1
        #expect(store[.volume] == 1)
        store.removeValue(forKey: "volume")
        #expect(store[.volume] == 0.25)
    }

    @Test func wrongTypeReadsDefaultReportsAndKeepsTheStoredValue() async {
        let store = PreferenceStore.inMemory(["volume": .string("loud")])
        #expect(store[.volume] == 0.5)
        #expect(store.storedValue(forKey: "volume") == .string("loud"))
        let event = store.recentEvents.last
        guard case .decodingFailed(let key, let expected, let found) = event else {
            Issue.record("expected a decoding failure, got \(String(describing: event))")
            return
        }
        #expect(key == "volume")
        #expect(expected == "Double")
        #expect(found.contains("string"))
    }

    @Test func diagnosticsStreamDeliversEvents() async {
        let store = PreferenceStore.inMemory(["count": .string("many")])
        let diagnostics = store.diagnostics  // subscribed from here on; events are buffered
        _ = store.value(forKey: "count", as: Int.self)
        var iterator = diagnostics.makeAsyncIterator()
        let event = await iterator.next()
        #expect(event?.description.contains("'count'") == true)
    }

    @Test func inMemoryStoreFlushesWithoutError() throws {
        let store = PreferenceStore.inMemory()
        store.set("x", forKey: "a")
        try store.flush()
        #expect(try store.backend.load().values["a"] == .string("x"))
    }
}
