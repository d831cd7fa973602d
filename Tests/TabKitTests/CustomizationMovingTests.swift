import Testing

@testable import TabKit

@Test func movingATabWithinItsSectionStoresTheFullOrder() throws {
    let model = SmartHomeTabs.model()
    var customization = TabViewCustomization()
    try model.moveTab("lights", toSection: "categories", at: 0, in: &customization)
    #expect(customization[section: "categories"].tabOrder == ["lights", "climate"])
    #expect(model.sidebar(customization: customization).section("categories")?.tabs.map(\.title) == ["Lights", "Climate"])
}

@Test func movingATabToAnotherSectionTakesItOutOfTheFirst() throws {
    let model = SmartHomeTabs.model()
    var customization = TabViewCustomization()
    try model.moveTab("lights", toSection: "categories", at: 0, in: &customization)
    try model.moveTab("climate", toSection: "library", at: 1, in: &customization)
    #expect(customization[section: "categories"].tabOrder == ["lights"])
    #expect(customization[section: "library"].tabOrder == ["books", "climate", "music"])
    let sidebar = model.sidebar(customization: customization)
    #expect(sidebar.section("categories")?.tabs.map(\.title) == ["Lights"])
    #expect(sidebar.section("library")?.tabs.map(\.title) == ["Books", "Climate", "Music"])

    try model.moveTab("climate", toSection: "categories", at: 99, in: &customization)
    let back = model.sidebar(customization: customization)
    #expect(back.section("categories")?.tabs.map(\.title) == ["Lights", "Climate"])
    #expect(back.section("library")?.tabs.map(\.title) == ["Books", "Music"])
}

@Test func movingKeepsIDsTheAppDoesNotKnowNextToTheirNeighbours() throws {
    var customization = TabViewCustomization()
    customization[section: "categories"].tabOrder = ["climate", "fans", "lights"]
    customization.sectionOrder = ["categories", "scenes", "library"]
    let model = SmartHomeTabs.model()
    try model.moveTab("lights", toSection: "categories", at: 0, in: &customization)
    #expect(customization[section: "categories"].tabOrder == ["lights", "climate", "fans"])
    try model.moveSection("library", to: 0, in: &customization)
    #expect(customization.sectionOrder == ["library", "categories", "scenes"])
}

@Test func movingASectionStoresTheSectionOrder() throws {
    let model = SmartHomeTabs.model()
    var customization = TabViewCustomization()
    try model.moveSection("library", to: 0, in: &customization)
    #expect(customization.sectionOrder == ["library", "categories"])
    #expect(model.sidebar(customization: customization).sections.map(\.title) == ["Library", "Categories"])
    try model.moveSection("library", to: -5, in: &customization)
    #expect(customization.sectionOrder == ["library", "categories"])
}

@Test func movesThatCannotApplyThrowTypedErrors() {
    let model = TabViewModel(selection: 1) {
        TabSection("Main") {
            Tab("Home", systemImage: "house", value: 1).customizationID("home")
            Tab("Settings", systemImage: "gear", value: 2).customizationID("settings")
                .customizationBehavior(.disabled, for: .sidebar)
            Tab("Help", systemImage: "questionmark", value: 3)
        }
        .customizationID("main")
        TabSection("Pinned") { Tab("Now", systemImage: "clock", value: 4) }
            .customizationID("pinned")
            .customizationBehavior(.disabled, for: .sidebar)
    }
    .tabViewStyle(.sidebarAdaptable)
    var customization = TabViewCustomization()
    #expect(throws: TabCustomizationError.unknownTab(id: "nope")) {
        try model.moveTab("nope", toSection: "main", at: 0, in: &customization)
    }
    #expect(throws: TabCustomizationError.unknownSection(id: "nowhere")) {
        try model.moveTab("home", toSection: "nowhere", at: 0, in: &customization)
    }
    #expect(throws: TabCustomizationError.notReorderable(id: "settings")) {
        try model.moveTab("settings", toSection: "main", at: 0, in: &customization)
    }
    #expect(throws: TabCustomizationError.topLevelTab(id: "home")) {
        try SmartHomeTabs.model().moveTab("home", toSection: "categories", at: 0, in: &customization)
    }
    #expect(throws: TabCustomizationError.notReorderable(id: "pinned")) {
        try model.moveSection("pinned", to: 0, in: &customization)
    }
    #expect(customization == TabViewCustomization())
    #expect(TabCustomizationError.unknownTab(id: "nope").description.contains("'nope'"))
}
