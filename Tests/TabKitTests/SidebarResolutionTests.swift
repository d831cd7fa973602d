import Testing

@testable import TabKit

@Test func nothingCustomizedGivesBuilderOrderAndDefaultVisibility() {
    let model = TabViewModel(selection: 1) {
        Tab("Home", systemImage: "house", value: 1).customizationID("home")
        Tab("Alerts", systemImage: "bell", value: 2).customizationID("alerts").defaultVisibility(.hidden, for: .sidebar)
        Tab("Tips", systemImage: "lightbulb", value: 3).customizationID("tips").defaultVisibility(.hidden, for: .tabBar)
    }
    .tabViewStyle(.sidebarAdaptable)
    let sidebar = model.sidebar(customization: TabViewCustomization())
    #expect(sidebar.allTabs.map(\.title) == ["Home", "Alerts", "Tips"])
    #expect(sidebar.allTabs.map(\.visibility) == [.visible, .hidden, .visible])
    #expect(SmartHomeTabs.model().sidebar(customization: TabViewCustomization()).description == SmartHomeTabs.defaultText)
}

@Test func customizationOverridesDefaultVisibilityBothWays() {
    let model = TabViewModel(selection: 1) {
        Tab("Home", systemImage: "house", value: 1).customizationID("home")
        Tab("Alerts", systemImage: "bell", value: 2).customizationID("alerts").defaultVisibility(.hidden, for: .sidebar)
    }
    .tabViewStyle(.sidebarAdaptable)
    var customization = TabViewCustomization()
    customization[tab: "home"].sidebarVisibility = .hidden
    customization[tab: "alerts"].sidebarVisibility = .visible
    let sidebar = model.sidebar(customization: customization)
    #expect(sidebar.tab("home")?.visibility == .hidden)
    #expect(sidebar.tab("alerts")?.visibility == .visible)
}

@Test func disabledTabsIgnoreTheirCustomization() {
    let model = TabViewModel(selection: 1) {
        TabSection("Main") {
            Tab("Settings", systemImage: "gear", value: 2).customizationID("settings")
                .customizationBehavior(.disabled, for: .sidebar)
            Tab("Home", systemImage: "house", value: 1).customizationID("home")
            Tab("Help", systemImage: "questionmark", value: 3).customizationID("help")
        }
        .customizationID("main")
    }
    .tabViewStyle(.sidebarAdaptable)
    var customization = TabViewCustomization()
    customization[tab: "settings"].sidebarVisibility = .hidden
    customization[section: "main"].tabOrder = ["help", "home", "settings"]
    let sidebar = model.sidebar(customization: customization)
    #expect(sidebar.tab("settings")?.isVisible == true)
    #expect(sidebar.tab("settings")?.canReorder == false)
    // Settings is not placed by the stored order: it is first in the builder, so it stays first.
    #expect(sidebar.allTabs.map(\.title) == ["Settings", "Help", "Home"])
}

@Test func reorderableTabsMoveButCannotBeHidden() {
    let model = TabViewModel(selection: 1) {
        TabSection("Main") {
            Tab("Home", systemImage: "house", value: 1).customizationID("home")
            Tab("Inbox", systemImage: "tray", value: 2).customizationID("inbox")
                .customizationBehavior(.reorderable, for: .sidebar)
        }
        .customizationID("main")
    }
    .tabViewStyle(.sidebarAdaptable)
    var customization = TabViewCustomization()
    customization[tab: "inbox"].sidebarVisibility = .hidden
    customization[section: "main"].tabOrder = ["inbox", "home"]
    let sidebar = model.sidebar(customization: customization)
    #expect(sidebar.allTabs.map(\.title) == ["Inbox", "Home"])
    #expect(sidebar.tab("inbox")?.isVisible == true)
    #expect(sidebar.tab("inbox")?.canChangeVisibility == false)
}

@Test func sectionAndTabOrderComeFromTheCustomization() {
    var customization = TabViewCustomization()
    customization.sectionOrder = ["library", "categories"]
    customization[section: "categories"].tabOrder = ["lights", "climate"]
    let sidebar = SmartHomeTabs.model().sidebar(customization: customization)
    // Sections swap places; the top-level tabs (Search included) stay where the builder put them.
    #expect(
        sidebar.description == """
            [x] Home (home)
            [x] Reports (reports)
            Library (library)
              [x] Books (books)
              [x] Music (music)
            [x] Search
            Categories (categories)
              [x] Lights (lights)
              [x] Climate (climate)
            """
    )
}

@Test func tabsAddedLaterFollowTheirBuilderPredecessor() {
    // Stored by a version that had Climate and Lights only, with the user's order Lights, Climate.
    var customization = TabViewCustomization()
    customization[section: "categories"].tabOrder = ["lights", "climate"]
    let newerApp = TabViewModel(selection: 1) {
        TabSection("Categories") {
            Tab("Heating", systemImage: "flame", value: 5).customizationID("heating")
            Tab("Climate", systemImage: "fan", value: 3).customizationID("climate")
            Tab("Fans", systemImage: "wind", value: 6).customizationID("fans")
            Tab("Lights", systemImage: "lightbulb", value: 4).customizationID("lights")
        }
        .customizationID("categories")
    }
    .tabViewStyle(.sidebarAdaptable)
    let titles = newerApp.sidebar(customization: customization).allTabs.map(\.title)
    #expect(titles == ["Heating", "Lights", "Climate", "Fans"])
}

@Test func sectionsAddedLaterFollowTheirBuilderPredecessor() {
    var customization = TabViewCustomization()
    customization.sectionOrder = ["library", "categories"]
    let newerApp = TabViewModel(selection: 1) {
        TabSection("Scenes") { Tab("Morning", systemImage: "sunrise", value: 8) }.customizationID("scenes")
        TabSection("Categories") { Tab("Climate", systemImage: "fan", value: 3) }.customizationID("categories")
        TabSection("Energy") { Tab("Solar", systemImage: "sun.max", value: 9) }.customizationID("energy")
        TabSection("Library") { Tab("Books", systemImage: "book", value: 5) }.customizationID("library")
    }
    .tabViewStyle(.sidebarAdaptable)
    let titles = newerApp.sidebar(customization: customization).sections.map(\.title)
    #expect(titles == ["Scenes", "Library", "Categories", "Energy"])
}

@Test func idsTheAppNoLongerHasAreIgnoredAndKept() {
    var customization = TabViewCustomization()
    customization[tab: "retired"].sidebarVisibility = .hidden
    customization[section: "old-section"].tabOrder = ["lights"]
    customization[section: "categories"].tabOrder = ["gone", "lights", "climate"]
    customization.sectionOrder = ["removed", "library", "categories"]
    let before = customization
    let sidebar = SmartHomeTabs.model().sidebar(customization: customization)
    #expect(sidebar.section("categories")?.tabs.map(\.title) == ["Lights", "Climate"])
    #expect(sidebar.sections.map(\.title) == ["Library", "Categories"])
    #expect(sidebar.allTabs.count == 7)
    #expect(customization == before)
    #expect(customization[tab: "retired"].sidebarVisibility == .hidden)
}

@Test func resetTabOrderRestoresBuilderOrderOfThatSection() {
    var customization = TabViewCustomization()
    customization[section: "categories"].tabOrder = ["lights", "climate"]
    customization[section: "library"].tabOrder = ["music", "books"]
    customization[section: "categories"].resetTabOrder()
    let sidebar = SmartHomeTabs.model().sidebar(customization: customization)
    #expect(sidebar.section("categories")?.tabs.map(\.title) == ["Climate", "Lights"])
    #expect(sidebar.section("library")?.tabs.map(\.title) == ["Music", "Books"])
}

@Test func resetVisibilityRestoresDefaultVisibility() {
    let model = TabViewModel(selection: 1) {
        Tab("Home", systemImage: "house", value: 1).customizationID("home")
        Tab("Alerts", systemImage: "bell", value: 2).customizationID("alerts").defaultVisibility(.hidden, for: .sidebar)
    }
    .tabViewStyle(.sidebarAdaptable)
    var customization = TabViewCustomization()
    customization[tab: "home"].sidebarVisibility = .hidden
    customization[tab: "alerts"].sidebarVisibility = .visible
    customization.resetVisibility()
    #expect(model.sidebar(customization: customization).allTabs.map(\.visibility) == [.visible, .hidden])
}

@Test func resetSectionOrderRestoresBuilderOrderEverywhere() {
    var customization = TabViewCustomization()
    customization.sectionOrder = ["library", "categories"]
    customization[section: "categories"].tabOrder = ["lights", "climate"]
    customization[tab: "reports"].sidebarVisibility = .hidden
    customization.resetSectionOrder()
    let sidebar = SmartHomeTabs.model().sidebar(customization: customization)
    #expect(sidebar.allTabs.map(\.title) == ["Home", "Reports", "Climate", "Lights", "Search", "Books", "Music"])
    #expect(sidebar.tab("reports")?.isVisible == false)
}

@Test func tabsWithoutCustomizationIDCannotBeCustomized() {
    var customization = TabViewCustomization()
    // There is no key for Search: its title is not an ID, so this stores an unrelated entry.
    customization[tab: "Search"].sidebarVisibility = .hidden
    customization[section: "library"].tabOrder = ["Search", "music", "books"]
    let sidebar = SmartHomeTabs.model().sidebar(customization: customization)
    let search = sidebar.allTabs.first { $0.title == "Search" }
    #expect(search?.isVisible == true)
    #expect(search?.canReorder == false)
    #expect(search?.canChangeVisibility == false)
    #expect(sidebar.section("library")?.tabs.map(\.title) == ["Music", "Books"])
}

@Test func tabDraggedIntoAnotherSectionAppearsThere() {
    var customization = TabViewCustomization()
    customization[section: "library"].tabOrder = ["books", "climate", "music"]
    let sidebar = SmartHomeTabs.model().sidebar(customization: customization)
    #expect(sidebar.section("categories")?.tabs.map(\.title) == ["Lights"])
    #expect(sidebar.section("library")?.tabs.map(\.title) == ["Books", "Climate", "Music"])
}

@Test func stylesOtherThanSidebarAdaptableIgnoreTheCustomization() {
    var customization = TabViewCustomization()
    customization[tab: "reports"].sidebarVisibility = .hidden
    customization.sectionOrder = ["library", "categories"]
    let sidebar = SmartHomeTabs.model().tabViewStyle(.automatic).sidebar(customization: customization)
    #expect(sidebar.description == SmartHomeTabs.defaultText)
}

@Test func topLevelTabsStayAtTopLevelEvenIfAStoredOrderListsThem() {
    var customization = TabViewCustomization()
    customization[section: "categories"].tabOrder = ["home", "lights", "climate"]
    let sidebar = SmartHomeTabs.model().sidebar(customization: customization)
    #expect(sidebar.entries.first == .tab(sidebar.allTabs[0]))
    #expect(sidebar.allTabs[0].title == "Home")
    #expect(sidebar.allTabs[0].canReorder == false)
    #expect(sidebar.section("categories")?.tabs.map(\.title) == ["Lights", "Climate"])
}
