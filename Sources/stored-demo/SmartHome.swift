import Foundation
import StoredKit
import TabKit

extension StoredKeys {
    /// The user's sidebar customization: hidden tabs, tab and section order.
    static let sidebar = StoredKey<TabViewCustomization>("sidebar", default: TabViewCustomization())
    /// The selected tab's value.
    static let selection = StoredKey<Int>("selection", default: 1)
}

/// The demo app: a smart-home sidebar (SwiftUI's documentation example) whose customization and
/// selection persist in a `PreferenceStore`.
struct SmartHome {
    let store: PreferenceStore
    @Stored<TabViewCustomization> var customization: TabViewCustomization
    @Stored<Int> var selection: Int

    init(store: PreferenceStore) {
        self.store = store
        _customization = Stored(.sidebar, store: store)
        _selection = Stored(.selection, store: store)
    }

    /// The app's tabs, declared as a SwiftUI app would.
    func makeModel() -> TabViewModel<Int> {
        TabViewModel(selection: selection) {
            Tab("Home", systemImage: "house", value: 1).customizationID("home")
            Tab("Reports", systemImage: "chart.bar", value: 2).customizationID("reports")
            TabSection("Categories") {
                Tab("Climate", systemImage: "fan", value: 3).customizationID("climate")
                Tab("Lights", systemImage: "lightbulb", value: 4).customizationID("lights")
                Tab("Security", systemImage: "lock", value: 5).customizationID("security")
            }
            .customizationID("categories")
            TabSection("Rooms") {
                Tab("Kitchen", systemImage: "fork.knife", value: 6).customizationID("kitchen")
                Tab("Bedroom", systemImage: "bed.double", value: 7).customizationID("bedroom")
            }
            .customizationID("rooms")
            Tab("Settings", systemImage: "gear", value: 8)
                .customizationID("settings")
                .customizationBehavior(.disabled, for: .sidebar)
        }
        .tabViewStyle(.sidebarAdaptable)
    }

    /// The sidebar as the user sees it, with the selected tab marked.
    func render() -> String {
        let model = makeModel()
        let sidebar = model.sidebar(customization: customization)
        let selectedTitle = model.selectedTab?.title ?? "none"
        return sidebar.description + "\n\nSelected: \(selectedTitle) (value \(selection))"
    }
}
