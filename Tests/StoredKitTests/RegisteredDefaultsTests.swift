import Foundation
import Testing

@testable import StoredKit

/// Registered defaults are read, never persisted: "has the user chosen yet?" must say no.
@Suite("Registered defaults are not persisted")
struct RegisteredDefaultsTests {
    @Test func registeredDefaultIsNotAStoredValue() {
        let store = PreferenceStore.inMemory()
        store.register(defaults: ["volume": 0.5])
        let volume = Stored(wrappedValue: 0.0, "volume", store: store)
        #expect(volume.wrappedValue == 0.5)
        #expect(!volume.projectedValue.isPersisted)
        #expect(!store.hasValue(for: StoredKey<Double>("volume", default: 0)))
        #expect(!store.hasValue(forKey: "volume"))
        #expect(store.keys.isEmpty)
    }

    @Test func aChosenValueIsPersistedEvenWhenItEqualsTheDefault() {
        let store = PreferenceStore.inMemory()
        store.register(defaults: ["volume": 0.5])
        store.set(0.5, forKey: "volume")
        #expect(store.hasValue(forKey: "volume"))
        store.removeValue(forKey: "volume")
        #expect(!store.hasValue(forKey: "volume"))
        #expect(store.value(forKey: "volume", as: Double.self) == 0.5)
    }

    @Test func aTransactionSeesOnlyItsOwnAndStoredValues() throws {
        let store = PreferenceStore.inMemory()
        store.register(defaults: ["volume": 0.5])
        try store.transaction { tx in
            #expect(!tx.hasValue(forKey: "volume"))
            #expect(tx.value(forKey: "volume", as: Double.self) == 0.5)
            tx.set(0.7, forKey: "volume")
            #expect(tx.hasValue(forKey: "volume"))
            tx.removeValue(forKey: "volume")
            #expect(!tx.hasValue(forKey: "volume"))
        }
    }
}
