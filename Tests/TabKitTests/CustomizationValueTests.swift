import Testing

@testable import TabKit

@Test func settingThroughTheTabSubscriptMutatesTheCustomization() {
    var customization = TabViewCustomization()
    customization[tab: "reports"].sidebarVisibility = .hidden
    #expect(customization[tab: "reports"].sidebarVisibility == .hidden)
    #expect(customization[sidebarVisibility: "reports"] == .hidden)
    #expect(customization[tab: "home"].sidebarVisibility == .automatic)
    #expect(customization != TabViewCustomization())
}

@Test func settingBackToDefaultEqualsNeverCustomized() {
    var customization = TabViewCustomization()
    customization[tab: "reports"].sidebarVisibility = .hidden
    customization[section: "categories"].tabOrder = ["lights", "climate"]
    customization[tab: "reports"].sidebarVisibility = .automatic
    customization[section: "categories"].resetTabOrder()
    #expect(customization == TabViewCustomization())
    #expect(customization.hashValue == TabViewCustomization().hashValue)
    #expect(customization.customizedTabIDs.isEmpty)
}

@Test func sectionSubscriptReadsAndWritesTabOrder() {
    var customization = TabViewCustomization()
    #expect(customization[section: "categories"].tabOrder == nil)
    customization[section: "categories"].tabOrder = ["lights", "climate"]
    #expect(customization[section: "categories"].tabOrder == ["lights", "climate"])
    #expect(customization.customizedSectionIDs == ["categories"])
}

@Test func resetVisibilityKeepsOrders() {
    var customization = TabViewCustomization()
    customization[tab: "reports"].sidebarVisibility = .hidden
    customization[tab: "home"].sidebarVisibility = .visible
    customization[section: "categories"].tabOrder = ["lights", "climate"]
    customization.sectionOrder = ["library", "categories"]
    customization.resetVisibility()
    #expect(customization[tab: "reports"].sidebarVisibility == .automatic)
    #expect(customization[tab: "home"].sidebarVisibility == .automatic)
    #expect(customization[section: "categories"].tabOrder == ["lights", "climate"])
    #expect(customization.sectionOrder == ["library", "categories"])
}

@Test func resetSectionOrderResetsAllOrderingAndKeepsVisibility() {
    var customization = TabViewCustomization()
    customization[tab: "reports"].sidebarVisibility = .hidden
    customization[section: "categories"].tabOrder = ["lights", "climate"]
    customization.sectionOrder = ["library", "categories"]
    customization.resetSectionOrder()
    #expect(customization.sectionOrder == nil)
    #expect(customization[section: "categories"].tabOrder == nil)
    #expect(customization[tab: "reports"].sidebarVisibility == .hidden)
}
