import Testing

@testable import TabKit

@Test func textMarksHiddenTabsAndIndentsSectionTabs() {
    var customization = TabViewCustomization()
    customization[tab: "reports"].sidebarVisibility = .hidden
    customization[tab: "music"].sidebarVisibility = .hidden
    let text = SmartHomeTabs.model().sidebar(customization: customization).description
    #expect(
        text == """
            [x] Home (home)
            [ ] Reports (reports)
            Categories (categories)
              [x] Climate (climate)
              [x] Lights (lights)
            [x] Search
            Library (library)
              [x] Books (books)
              [ ] Music (music)
            """
    )
}

@Test func visibleTabsLeaveOutHiddenOnes() {
    var customization = TabViewCustomization()
    customization[tab: "reports"].sidebarVisibility = .hidden
    let sidebar = SmartHomeTabs.model().sidebar(customization: customization)
    #expect(sidebar.visibleTabs.map(\.title) == ["Home", "Climate", "Lights", "Search", "Books", "Music"])
}
