import Foundation
import StoredKit
import Testing

// The examples of "Values and Codable" (Sources/StoredKit/StoredKit.docc/ValuesAndCodable.md).

struct Window: Codable, Equatable, Sendable {
    var width: Int
    var height: Int
    var title: String?
}

/// Both RawRepresentable and Codable, with a Codable form of its own that StoredKit does not use.
enum Speed: Int, Codable, Sendable {
    case slow = 1, fast = 2
}

/// The article's versioned value: version 2 of the sidebar (version 1 is `SidebarV1`).
struct Sidebar: VersionedStorable, Equatable {
    static let version = 2
    var order: [String]
    var hidden: [String]
    static func upgrade(from old: OutdatedValue) throws -> Sidebar {
        Sidebar(order: try old.decode(as: SidebarV1.self).tabs, hidden: [])  // old.version == 1
    }
}

/// Nests `depth` arrays inside one another.
func nested(_ depth: Int) -> StoredValue {
    (1..<depth).reduce(StoredValue.array([])) { inner, _ in .array([inner]) }
}

@Suite("Values and Codable")
struct ValuesAndCodableExamples {
    @Test func aCodableValueIsANestedDictionary() throws {
        let store = PreferenceStore.inMemory()
        store.set(Window(width: 800, height: 600, title: nil), forKey: "window")
        #expect(store.storedValue(forKey: "window") == .dictionary(["width": .int(800), "height": .int(600)]))
        #expect(store.value(forKey: "window", as: Window.self) == Window(width: 800, height: 600))
    }

    @Test func theEncoderAndDecoderWorkWithoutAStore() throws {
        let value = try StoredValueEncoder().encode(Window(width: 1, height: 2, title: "Main"))
        #expect(StoredValueJSON.encode(value) == #"{"height":2,"title":"Main","width":1}"#)
        #expect(try StoredValueDecoder().decode(Window.self, from: value).title == "Main")
    }

    @Test func rawRepresentableAndCodableIsStoredByRawValue() {
        let store = PreferenceStore.inMemory()
        store.set(Speed.fast, forKey: "speed")
        #expect(store.storedValue(forKey: "speed") == .int(2))
        #expect(store.value(forKey: "speed", as: Speed.self) == .fast)
    }

    @Test func aValueThatDoesNotDecodeReadsAsTheDefaultAndStays() {
        let store = PreferenceStore.inMemory()
        store.set("loud", forKey: "volume")
        #expect(store[.volume] == 0.5)
        #expect(store.storedValue(forKey: "volume") == .string("loud"))
        let reported = store.recentEvents.contains { event in
            if case .decodingFailed(key: "volume", _, _) = event { true } else { false }
        }
        #expect(reported)
    }

    @Test func anOlderVersionIsUpgradedWhenRead() throws {
        let store = PreferenceStore.inMemory()
        store.set(SidebarV1(tabs: ["home"]), forKey: "sidebar")  // stored before Sidebar adopted the protocol
        #expect(store.value(forKey: "sidebar", as: Sidebar.self) == Sidebar(order: ["home"], hidden: []))
        store.set(Sidebar(order: ["home"], hidden: ["radio"]), forKey: "sidebar")
        let stored = store.storedValue(forKey: "sidebar")
        guard case .dictionary(let envelope) = stored else {
            Issue.record("expected the versioned envelope, found \(String(describing: stored))")
            return
        }
        #expect(envelope["$version"] == .int(2))
    }

    @Test func aMigrationCanRewriteTheCurrentShape() throws {
        let backend = MemoryBackend(values: ["sidebar": .dictionary(["tabs": .array([.string("home")])])])
        let store = try PreferenceStore(
            backend,
            migrations: [Migration(version: 4, "store sidebar v2") { m in try m.upgradeValue("sidebar", to: Sidebar.self) }])
        guard case .dictionary(let envelope) = store.storedValue(forKey: "sidebar") else {
            Issue.record("expected the versioned envelope")
            return
        }
        #expect(envelope["$version"] == .int(2))
    }

    @Test func valuesNestAtMostMaximumDepthLevels() {
        let store = PreferenceStore.inMemory()
        store.setStoredValue(nested(StoredValue.maximumDepth), forKey: "deep")
        #expect(store.hasValue(forKey: "deep"))
        store.setStoredValue(nested(StoredValue.maximumDepth + 1), forKey: "deeper")
        #expect(!store.hasValue(forKey: "deeper"))
        let refused = store.recentEvents.contains { event in
            if case .encodingFailed(key: "deeper", _) = event { true } else { false }
        }
        #expect(refused)
    }

    @Test func registeredDefaultsAreReadNotPersisted() {
        let store = PreferenceStore.inMemory()
        store.register(defaults: ["volume": 0.7])
        #expect(store[.volume] == 0.7)
        #expect(!store.hasValue(forKey: "volume"))
    }
}
