import TabKit

/// The tab view most tests share: two top-level tabs, a section, an ID-less tab, another section.
///
/// ```swift
/// print(SmartHomeTabs.model().sidebar(customization: TabViewCustomization()))
/// ```
enum SmartHomeTabs {
    static func model() -> TabViewModel<Int> {
        TabViewModel(selection: 1) {
            Tab("Home", systemImage: "house", value: 1).customizationID("home")
            Tab("Reports", systemImage: "chart.bar", value: 2).customizationID("reports")
            TabSection("Categories") {
                Tab("Climate", systemImage: "fan", value: 3).customizationID("climate")
                Tab("Lights", systemImage: "lightbulb", value: 4).customizationID("lights")
            }
            .customizationID("categories")
            Tab("Search", systemImage: "magnifyingglass", value: 7)
            TabSection("Library") {
                Tab("Books", systemImage: "book", value: 5).customizationID("books")
                Tab("Music", systemImage: "music.note", value: 6).customizationID("music")
            }
            .customizationID("library")
        }
        .tabViewStyle(.sidebarAdaptable)
    }

    static let defaultText = """
        [x] Home (home)
        [x] Reports (reports)
        Categories (categories)
          [x] Climate (climate)
          [x] Lights (lights)
        [x] Search
        Library (library)
          [x] Books (books)
          [x] Music (music)
        """
}
