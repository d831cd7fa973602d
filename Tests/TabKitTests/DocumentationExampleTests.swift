import Foundation
import Testing

@testable import TabKit

@Test func smartHomeSidebarExample() throws {
    let model = TabViewModel(selection: 1) {
        Tab("Home", systemImage: "house", value: 1).customizationID("home")
        Tab("Reports", systemImage: "chart.bar", value: 2).customizationID("reports")
        TabSection("Categories") {
            Tab("Climate", systemImage: "fan", value: 3).customizationID("climate")
            Tab("Lights", systemImage: "lightbulb", value: 4).customizationID("lights")
        }
        .customizationID("categories")
    }
    .tabViewStyle(.sidebarAdaptable)

    var customization = TabViewCustomization()
    customization[tab: "reports"].sidebarVisibility = .hidden
    try model.moveTab("lights", toSection: "categories", at: 0, in: &customization)

    let expected = """
        [x] Home (home)
        [ ] Reports (reports)
        Categories (categories)
          [x] Lights (lights)
          [x] Climate (climate)
        """
    #expect(model.sidebar(customization: customization).description == expected)

    let decoded = try JSONDecoder().decode(TabViewCustomization.self, from: try JSONEncoder().encode(customization))
    #expect(decoded == customization)
    #expect(model.sidebar(customization: decoded).description == expected)
}

private struct ProfileScreen {
    var dynamicTab: AnyTabContent<Int> {
        AnyTabContent(Tab("Profile", systemImage: "person", value: 3) { "Signed in as Ada" })
    }

    func makeModel() -> TabViewModel<Int> {
        TabViewModel(selection: 1) {
            Tab("Home", systemImage: "house", value: 1)
            Tab("Search", systemImage: "magnifyingglass", value: 2)
            dynamicTab
        }
    }
}

@Test func dynamicTabExample() {
    let model = ProfileScreen().makeModel()
    #expect(model.selectedTab?.title == "Home")
    model.selection = 3
    #expect(model.selectedTab?.title == "Profile")
    #expect(model.selectedTab?.content() == "Signed in as Ada")
    #expect(model.tabs.map(\.title) == ["Home", "Search", "Profile"])
}
