import Foundation
import StoredKitTestSupport
import Testing

@testable import StoredKit

/// The check every `set` makes against what is stored: an equal value (freshly encoded, so
/// sharing no storage) changes nothing, and a difference anywhere in the tree is found, also one
/// behind scalars that are all equal (the comparison looks at scalars first).
@Suite("The change check on set")
struct ChangeCheckTests {
    @Test func anEqualCodableValueNotifiesNobody() {
        let store = PreferenceStore.inMemory()
        let seen = Recorder<Change>()
        let token = store.observe("sidebar") { seen.append($0) }
        store.set(SidebarCustomization.twentyTabs(), forKey: "sidebar")
        store.set(SidebarCustomization.twentyTabs(), forKey: "sidebar")  // equal, encoded again: no change
        var changed = SidebarCustomization.twentyTabs()
        changed.sectionOrders[3].tabOrder.swapAt(0, 4)  // deep inside; every scalar around it equal
        store.set(changed, forKey: "sidebar")
        #expect(seen.values.count == 2)
        #expect(store.value(forKey: "sidebar", as: SidebarCustomization.self) == changed)
        withExtendedLifetime(token) {}
    }

    @Test func containersAreComparedAfterTheScalars() {
        let base: StoredValue = .dictionary(["a": .int(1), "list": .array([.int(1)]), "z": .string("x")])
        #expect(base == .dictionary(["z": .string("x"), "list": .array([.int(1)]), "a": .int(1)]))
        #expect(base != .dictionary(["a": .int(1), "list": .array([.int(2)]), "z": .string("x")]))
        #expect(base != .dictionary(["a": .int(1), "other": .array([.int(1)]), "z": .string("x")]))
        #expect(base != .dictionary(["a": .int(1), "list": .int(1), "z": .string("x")]))
        #expect(base != .dictionary(["a": .int(2), "list": .array([.int(1)]), "z": .string("x")]))
        let shared: [StoredValue] = [.double(.nan), .dictionary(["k": .bool(true)])]
        #expect(StoredValue.array(shared) == .array(shared))
        #expect(StoredValue.array(shared) == .array([.double(.nan), .dictionary(["k": .bool(true)])]))
    }
}
