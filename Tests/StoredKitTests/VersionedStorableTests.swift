import Foundation
import Testing

@testable import StoredKit

/// The first shape of a sidebar customization, stored before versioning was adopted.
struct SidebarLayoutV1: Codable, Equatable {
    var tabs: [String]
    var hiddenTab: String?
}

/// The second shape, TabViewCustomization-like: an order and a set of hidden tabs.
struct SidebarLayout: VersionedStorable, Equatable {
    static let version = 2
    var order: [String]
    var hidden: [String]

    static func upgrade(from old: OutdatedValue) throws -> SidebarLayout {
        let v1 = try old.decode(as: SidebarLayoutV1.self)
        return SidebarLayout(order: v1.tabs, hidden: v1.hiddenTab.map { [$0] } ?? [])
    }
}

/// A type that has never changed shape: no upgrade needed.
struct WindowFrame: VersionedStorable, Equatable {
    static let version = 1
    var width: Double
}

@Suite("Values that carry their own version")
struct VersionedStorableTests {
    static let v1 = SidebarLayoutV1(tabs: ["home", "search"], hiddenTab: "search")
    static let upgraded = SidebarLayout(order: ["home", "search"], hidden: ["search"])

    @Test func valueStoredWithoutVersionIsUpgradedFromVersionOne() throws {
        let store = PreferenceStore.inMemory()
        store.set(Self.v1, forKey: "sidebar")  // as the app stored it before adopting VersionedStorable
        #expect(store.value(forKey: "sidebar", as: SidebarLayout.self) == Self.upgraded)
        let key = StoredKey<SidebarLayout>("sidebar", default: .init(order: [], hidden: []))
        #expect(store[key] == Self.upgraded)
        // Reading does not rewrite: the old shape stays until the value is written again.
        #expect(store.storedValue(forKey: "sidebar") == (try StoredValueEncoder().encode(Self.v1)))
    }

    @Test func writesStoreTheVersionWithTheValue() throws {
        let store = PreferenceStore.inMemory()
        store.set(Self.upgraded, forKey: "sidebar")
        let expected = StoredValue.dictionary([
            "$version": .int(2),
            "$value": .dictionary([
                "order": .array([.string("home"), .string("search")]), "hidden": .array([.string("search")]),
            ]),
        ])
        #expect(store.storedValue(forKey: "sidebar") == expected)
        #expect(store.value(forKey: "sidebar", as: SidebarLayout.self) == Self.upgraded)

        store.set(WindowFrame(width: 300), forKey: "frame")
        #expect(store.value(forKey: "frame", as: WindowFrame.self) == WindowFrame(width: 300))
    }

    @Test func valueFromANewerVersionReadsAsTheDefaultAndIsKept() throws {
        let newer = StoredValue.dictionary(["$version": .int(3), "$value": .dictionary(["layout": .string("grid")])])
        let store = PreferenceStore.inMemory(["sidebar": newer])
        let key = StoredKey<SidebarLayout>("sidebar", default: .init(order: ["default"], hidden: []))
        #expect(store[key] == SidebarLayout(order: ["default"], hidden: []))
        #expect(store.storedValue(forKey: "sidebar") == newer)
        #expect(store.recentEvents.contains { if case .decodingFailed(key: "sidebar", _, _) = $0 { true } else { false } })
    }

    @Test func typeWithoutUpgradeRefusesOlderVersions() {
        let older = StoredValue.dictionary(["$version": .int(0), "$value": .dictionary(["width": .double(1)])])
        let store = PreferenceStore.inMemory(["frame": older])
        #expect(store.value(forKey: "frame", as: WindowFrame.self) == nil)
    }

    @Test(arguments: BackendKind.allCases)
    func migrationCanBringStoredValuesToTheCurrentVersion(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["sidebar": try StoredValueEncoder().encode(Self.v1)])
        let store = try fixture.open([
            Migration(version: 1, "sidebar v2") { m in try m.upgradeValue("sidebar", to: SidebarLayout.self) }
        ])
        guard case .dictionary(let fields)? = try fixture.stored().values["sidebar"] else {
            Issue.record("sidebar was not rewritten")
            return
        }
        #expect(fields["$version"] == .int(2))
        #expect(store.value(forKey: "sidebar", as: SidebarLayout.self) == Self.upgraded)
    }
}
