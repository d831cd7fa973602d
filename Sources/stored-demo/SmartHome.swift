import Foundation
import StoredKit
import TabKit

extension StoredKeys {
    /// The user's sidebar customization: hidden tabs, tab and section order.
    static let sidebar = StoredKey<TabViewCustomization>("sidebar", default: TabViewCustomization())
    /// The selected tab's value.
    static let selection = StoredKey<Int>("selection", default: 1)
    /// The names of the user's rooms, in the order they were added.
    static let rooms = StoredKey<[String]>("rooms", default: ["Kitchen", "Bedroom"])
}

/// The demo app: a smart-home sidebar (SwiftUI's documentation example) whose customization,
/// selection and rooms persist in a `PreferenceStore`.
struct SmartHome {
    let store: PreferenceStore
    @Stored<TabViewCustomization> var customization: TabViewCustomization
    @Stored<Int> var selection: Int
    @Stored<[String]> var roomNames: [String]

    init(store: PreferenceStore) {
        self.store = store
        _customization = Stored(.sidebar, store: store)
        _selection = Stored(.selection, store: store)
        _roomNames = Stored(.rooms, store: store)
    }

    /// The user's rooms, from the stored list. A list written by hand (`stored write`) may repeat a
    /// room or name one without a letter: those are skipped, so every tab has its own ID and value.
    var rooms: [Room] {
        var seen: Set<Int> = []
        return roomNames.map(Room.init(name:)).filter { room in
            !room.slug.isEmpty && seen.insert(room.selectionValue).inserted
        }
    }

    /// One tab per room, computed at run time and mixed with the literal tabs by the builder.
    var roomTabs: AnyTabContent<Int> {
        let rooms = rooms
        return AnyTabContent {
            for room in rooms {
                Tab(room.name, systemImage: "door.left.hand.open", value: room.selectionValue) { room.content }
                    .customizationID(room.customizationID)
            }
        }
    }

    /// The app's tabs, declared as a SwiftUI app would.
    func makeModel() -> TabViewModel<Int> {
        TabViewModel(selection: selection) {
            Tab("Home", systemImage: "house", value: 1) { "Welcome home. Everything is quiet." }
                .customizationID("home")
            Tab("Reports", systemImage: "chart.bar", value: 2) { "Energy this week: 42 kWh, 8% less than last week." }
                .customizationID("reports")
            TabSection("Categories") {
                Tab("Climate", systemImage: "fan", value: 3) { "Inside 21.5 C, outside 7 C. Heating: eco." }
                    .customizationID("climate")
                Tab("Lights", systemImage: "lightbulb", value: 4) { "2 of 9 lights are on." }
                    .customizationID("lights")
                Tab("Security", systemImage: "lock", value: 5) { "Doors locked, alarm armed." }
                    .customizationID("security")
            }
            .customizationID("categories")
            TabSection("Rooms") {
                roomTabs
            }
            .customizationID("rooms")
            Tab("Settings", systemImage: "gear", value: 8) { "Settings stay at the bottom: they cannot be customized." }
                .customizationID("settings")
                .customizationBehavior(.disabled, for: .sidebar)
        }
        .tabViewStyle(.sidebarAdaptable)
    }

    /// The sidebar as the user sees it now.
    var sidebar: ResolvedSidebar<Int> {
        makeModel().sidebar(customization: customization)
    }

    /// The sidebar as the user sees it, with the selected tab marked and what the administrator
    /// locked (``DemoLocks/summary``) on the last line. Control characters and bidirectional
    /// overrides in stored names (a room list written by hand) print as `?`, so they cannot drive the terminal.
    func render() -> String {
        let model = makeModel()
        let sidebar = model.sidebar(customization: customization)
        let selectedTitle = model.selectedTab?.title ?? "none"
        let locks = locks.summary.map { "\n" + $0 } ?? ""
        let text = sidebar.description + "\n\nSelected: \(selectedTitle) (value \(selection))" + locks
        return TerminalScreen.printableLines(text)
    }
}
