import Testing

@testable import TabKit

private func titles(_ content: AnyTabContent<Int>) -> [String] {
    content.tabContentItems.flatMap { item in
        switch item {
        case .tab(let tab): [tab.title]
        case .section(let section): ["<\(section.title)>"] + section.tabs.map(\.title)
        }
    }
}

private func build(showSearch: Bool, useGrid: Bool, rooms: [String], extra: Tab<Int>?) -> AnyTabContent<Int> {
    AnyTabContent {
        Tab("Home", systemImage: "house", value: 1)
        if showSearch {
            Tab("Search", systemImage: "magnifyingglass", value: 2)
        }
        if useGrid {
            Tab("Grid", systemImage: "square.grid.2x2", value: 3)
        } else {
            Tab("List", systemImage: "list.bullet", value: 4)
        }
        TabSection("Rooms") {
            for (offset, room) in rooms.enumerated() {
                Tab(room, systemImage: "square", value: 10 + offset)
            }
        }
        if let extra {
            extra
        }
    }
}

@Test func ifWithoutElseAddsTabsOnlyWhenTrue() {
    #expect(titles(build(showSearch: true, useGrid: true, rooms: [], extra: nil)).contains("Search"))
    #expect(!titles(build(showSearch: false, useGrid: true, rooms: [], extra: nil)).contains("Search"))
}

@Test func ifElseTakesOneBranch() {
    #expect(titles(build(showSearch: false, useGrid: true, rooms: [], extra: nil)) == ["Home", "Grid", "<Rooms>"])
    #expect(titles(build(showSearch: false, useGrid: false, rooms: [], extra: nil)) == ["Home", "List", "<Rooms>"])
}

@Test func forLoopAddsOneTabPerElementInOrder() {
    let content = build(showSearch: false, useGrid: true, rooms: ["Kitchen", "Garage"], extra: nil)
    #expect(titles(content) == ["Home", "Grid", "<Rooms>", "Kitchen", "Garage"])
    guard case .section(let rooms) = content.tabContentItems[2] else {
        Issue.record("expected the Rooms section third")
        return
    }
    #expect(rooms.tabs.map(\.value) == [10, 11])
}

@Test func optionalUnwrappingAddsTheTab() {
    let extra = Tab("Extra", systemImage: "plus", value: 99)
    #expect(titles(build(showSearch: false, useGrid: true, rooms: [], extra: extra)).last == "Extra")
}

private struct Screens {
    var isSignedIn: Bool

    var dynamicTab: AnyTabContent<Int> {
        if isSignedIn {
            AnyTabContent(Tab("Profile", systemImage: "person", value: 3).customizationID("profile"))
        } else {
            AnyTabContent(Tab("Sign In", systemImage: "person.badge.key", value: 4))
        }
    }

    @TabContentBuilder<Int> var accountTabs: AnyTabContent<Int> {
        Tab("Account", systemImage: "person.crop.circle", value: 5)
        TabSection("Devices") {
            Tab("Phone", systemImage: "iphone", value: 6)
        }
    }

    func model() -> TabViewModel<Int> {
        TabViewModel(selection: 1) {
            Tab("Home", systemImage: "house", value: 1)
            dynamicTab
            accountTabs
        }
    }
}

@Test func anyTabContentFromAComputedPropertyMixesWithLiteralTabs() {
    #expect(Screens(isSignedIn: true).model().tabs.map(\.title) == ["Home", "Profile", "Account", "Phone"])
    #expect(Screens(isSignedIn: false).model().tabs.map(\.title) == ["Home", "Sign In", "Account", "Phone"])
    #expect(Screens(isSignedIn: true).model().tabs[1].customizationID == "profile")
}

@Test func sectionsDoNotNestTheirTabsAreFlattened() {
    let section = TabSection("Outer") {
        Tab("A", systemImage: "a.circle", value: 1)
        TabSection("Inner") {
            Tab("B", systemImage: "b.circle", value: 2)
        }
    }
    #expect(section.tabs.map(\.title) == ["A", "B"])
}

@Test func modifiersAreRecordedPerPlacement() {
    let tab = Tab("Alerts", systemImage: "bell", value: 4)
        .customizationID("alerts")
        .defaultVisibility(.hidden, for: .sidebar)
        .customizationBehavior(.reorderable, for: .sidebar, .tabBar)
    #expect(tab.customizationID == "alerts")
    #expect(tab.defaultVisibility(in: .sidebar) == .hidden)
    #expect(tab.defaultVisibility(in: .tabBar) == .automatic)
    #expect(tab.customizationBehavior(in: .tabBar) == .reorderable)
}

@Test func tabContentIsProducedOnDemand() {
    #expect(Tab("Lights", systemImage: "lightbulb", value: 4) { 3 + 1 }.content() == "4")
    #expect(Tab("Home", systemImage: "house", value: 1).content() == "Home")
}

@Test func selectionThroughAGetSetPairWritesBack() {
    final class Holder { var value = 1 }
    let holder = Holder()
    let model = TabViewModel(selection: TabSelection(get: { holder.value }, set: { holder.value = $0 })) {
        Tab("Home", systemImage: "house", value: 1)
        Tab("Search", systemImage: "magnifyingglass", value: 2)
    }
    model.selection = 2
    #expect(holder.value == 2)
    holder.value = 1
    #expect(model.selectedTab?.title == "Home")
}

@Test func emptyBuildersGiveNoTabs() {
    let section = TabSection<Int>("Empty") {}
    #expect(section.tabs.isEmpty)
    let model = TabViewModel(selection: 1) { section }.tabViewStyle(.sidebarAdaptable)
    #expect(model.sidebar(customization: TabViewCustomization()).description == "Empty")
    #expect(model.selectedTab == nil)
}
