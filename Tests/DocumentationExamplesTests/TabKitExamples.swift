import Foundation
import StoredKit
import StoredKitTestSupport
import TabKit
import Testing

// The examples of TabKit's articles: "Persisting a tab customization"
// (Sources/TabKit/TabKit.docc/PersistingATabCustomization.md) and "Type-erased tab content"
// (Sources/TabKit/TabKit.docc/TypeErasedTabContent.md).

extension StoredKeys {
    static let sidebar = StoredKey<TabViewCustomization>("sidebar", default: .init())
}

/// Step 1: the tabs, as a SwiftUI app declares them.
func smartHomeModel() -> TabViewModel<Int> {
    TabViewModel(selection: 1) {
        Tab("Home", systemImage: "house", value: 1).customizationID("home")
        Tab("Reports", systemImage: "chart.bar", value: 2).customizationID("reports")
        TabSection("Categories") {
            Tab("Climate", systemImage: "fan", value: 3).customizationID("climate")
            Tab("Lights", systemImage: "lightbulb", value: 4).customizationID("lights")
        }
        .customizationID("categories")
    }
    .tabViewStyle(.sidebarAdaptable)
}

/// Step 4: the customization as a property of the app's model.
struct SidebarSettings {
    @Stored<TabViewCustomization> var customization: TabViewCustomization

    init(store: PreferenceStore) {
        _customization = Stored(.sidebar, store: store)
    }
}

/// The screen of "Type-erased tab content": a tab computed by a property.
struct ProfileScreen {
    let signedIn: Bool

    var dynamicTab: AnyTabContent<Int> {
        if signedIn {
            AnyTabContent(Tab("Profile", systemImage: "person", value: 3) { "Signed in as Ada" })
        } else {
            AnyTabContent(Tab("Sign In", systemImage: "person.badge.key", value: 3) { "Sign in to sync" })
        }
    }

    func makeModel() -> TabViewModel<Int> {
        TabViewModel(selection: 1) {
            Tab("Home", systemImage: "house", value: 1)
            Tab("Search", systemImage: "magnifyingglass", value: 2)
            dynamicTab
        }
    }
}

/// Rooms from data, each a tab with a stable customization ID.
func roomTabs(_ names: [String]) -> AnyTabContent<Int> {
    AnyTabContent(
        TabSection("Rooms") {
            for (index, name) in names.enumerated() {
                Tab(name, systemImage: "square.split.bottomrightquarter", value: 100 + index)
                    .customizationID("room.\(name.lowercased())")
            }
        }
        .customizationID("rooms"))
}

@Suite("TabKit articles")
struct TabKitExamples {
    static let customizedSidebar = """
        [x] Home (home)
        [ ] Reports (reports)
        Categories (categories)
          [x] Lights (lights)
          [x] Climate (climate)
        """

    @Test func theUncustomizedSidebarIsTheBuildersOrder() {
        #expect(
            smartHomeModel().sidebar(customization: TabViewCustomization()).description == """
                [x] Home (home)
                [x] Reports (reports)
                Categories (categories)
                  [x] Climate (climate)
                  [x] Lights (lights)
                """)
    }

    @Test func aCustomizationHidesAndMoves() throws {
        let model = smartHomeModel()
        var customization = TabViewCustomization()
        customization[tab: "reports"].sidebarVisibility = .hidden
        try model.moveTab("lights", toSection: "categories", at: 0, in: &customization)
        #expect(model.sidebar(customization: customization).description == Self.customizedSidebar)
    }

    @Test func theStoreKeepsItAcrossLaunches() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.sqlite")
        let model = smartHomeModel()
        do {
            let store = try PreferenceStore(.sqlite(at: url))
            try store.update(.sidebar) { customization in
                customization[tab: "reports"].sidebarVisibility = .hidden
                try model.moveTab("lights", toSection: "categories", at: 0, in: &customization)
            }
        }
        let relaunched = try PreferenceStore(.sqlite(at: url))
        #expect(model.sidebar(customization: relaunched[.sidebar]).description == Self.customizedSidebar)
        let json = StoredValueJSON.encode(try #require(relaunched.storedValue(forKey: "sidebar")))
        let expected = [
            #"{"formatVersion":1,"#,
            #""sections":{"categories":{"tabOrder":["lights","climate"]}},"#,
            #""tabs":{"reports":{"visibility":"hidden"}}}"#,
        ]
        #expect(json == expected.joined())
    }

    @Test func aStoredPropertyInTheAppsModel() throws {
        let store = PreferenceStore.inMemory()
        let settings = SidebarSettings(store: store)
        settings.customization[tab: "reports"].sidebarVisibility = .hidden
        #expect(store[.sidebar][tab: "reports"].sidebarVisibility == .hidden)
        settings.$customization.reset()
        #expect(settings.customization == TabViewCustomization())
    }

    @Test func aLocalStoredVariableInAFunction() throws {
        let store = PreferenceStore.inMemory()
        let model = smartHomeModel()
        @Stored(.sidebar, store: store) var customization  // StoredKey<TabViewCustomization>
        customization[tab: "reports"].sidebarVisibility = .hidden
        try model.moveTab("lights", toSection: "categories", at: 0, in: &customization)
        #expect(model.sidebar(customization: customization).description == Self.customizedSidebar)
    }

    @Test func aComputedTabJoinsLiteralTabs() {
        let model = ProfileScreen(signedIn: true).makeModel()
        #expect(model.selectedTab?.title == "Home")
        model.selection = 3
        #expect(model.selectedTab?.title == "Profile")
        #expect(model.selectedTab?.content() == "Signed in as Ada")
        #expect(model.tabs.map(\.title) == ["Home", "Search", "Profile"])
        #expect(ProfileScreen(signedIn: false).makeModel().tabs.map(\.title) == ["Home", "Search", "Sign In"])
    }

    @Test func tabsFromData() {
        let model = TabViewModel(selection: 1) {
            Tab("Home", systemImage: "house", value: 1).customizationID("home")
            roomTabs(["Kitchen", "Bedroom"])
        }
        .tabViewStyle(.sidebarAdaptable)
        #expect(
            model.sidebar(customization: TabViewCustomization()).description == """
                [x] Home (home)
                Rooms (rooms)
                  [x] Kitchen (room.kitchen)
                  [x] Bedroom (room.bedroom)
                """)
    }
}
