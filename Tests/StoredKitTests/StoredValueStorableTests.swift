import Foundation
import Testing

@testable import StoredKit

/// `StoredValue` is a value you can store: the identity, through every API that takes a value.
@Suite("StoredValue as a stored value")
struct StoredValueStorableTests {
    static let tree: StoredValue = .dictionary([
        "on": .bool(true), "count": .int(-3), "big": .uint(.max), "ratio": .double(0.25),
        "name": .string("Küche"), "blob": .data(Data([0, 1, 255])),
        "when": .date(Date(timeIntervalSinceReferenceDate: 12.5)),
        "list": .array([.int(1), .array([]), .dictionary([:])]),
    ])

    @Test func setAndReadByKeyName() {
        let store = PreferenceStore.inMemory()
        store.set(Self.tree, forKey: "raw")
        #expect(store.storedValue(forKey: "raw") == Self.tree)
        #expect(store.value(forKey: "raw", as: StoredValue.self) == Self.tree)
    }

    @Test func typedKeyAndOptionalProperty() {
        let store = PreferenceStore.inMemory()
        let any = StoredKey<StoredValue>("any", default: .string("x"))
        #expect(store[any] == .string("x"))
        store[any] = Self.tree
        #expect(store[any] == Self.tree)

        @Stored("raw", store: store) var raw: StoredValue?
        #expect(raw == nil)
        raw = .array([.bool(false)])
        #expect(store.storedValue(forKey: "raw") == .array([.bool(false)]))
        raw = nil
        #expect(!store.hasValue(forKey: "raw"))
    }

    @Test func aStoredValueInsideACodableValueIsKeptAsItIs() throws {
        struct Envelope: Codable, Equatable { var kind: String; var payload: StoredValue }
        let store = PreferenceStore.inMemory()
        let envelope = Envelope(kind: "tree", payload: Self.tree)
        store.set(envelope, forKey: "envelope")
        #expect(store.storedValue(forKey: "envelope") == .dictionary(["kind": .string("tree"), "payload": Self.tree]))
        #expect(store.value(forKey: "envelope", as: Envelope.self) == envelope)
    }

    @Test func survivesAReopenedFileStore() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.sqlite")
        do {
            let store = try PreferenceStore(.sqlite(at: url), durability: .immediate)
            store.set(Self.tree, forKey: "raw")
        }
        let reopened = try PreferenceStore(.sqlite(at: url))
        #expect(reopened.value(forKey: "raw", as: StoredValue.self) == Self.tree)
    }

    @Test func jsonCodersGetItsNaturalShape() throws {
        let value: StoredValue = .dictionary(["a": .array([.int(1), .string("b"), .bool(true), .double(1.5)])])
        let json = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(StoredValue.self, from: json) == value)
    }
}
