/// A headless `TabView`: the tabs from a builder, the current selection, a style, and the
/// resolver that applies a ``TabViewCustomization``.
///
/// ```swift
/// let model = TabViewModel(selection: 1) {
///     Tab("Home", systemImage: "house", value: 1).customizationID("home")
///     Tab("Reports", systemImage: "chart.bar", value: 2).customizationID("reports")
/// }
/// .tabViewStyle(.sidebarAdaptable)
/// var customization = TabViewCustomization()
/// customization[tab: "reports"].sidebarVisibility = .hidden
/// print(model.sidebar(customization: customization))
/// //=> [x] Home (home)
/// //=> [ ] Reports (reports)
/// ```
public final class TabViewModel<SelectionValue: Hashable> {
    private enum SelectionStorage {
        case owned(SelectionValue)
        case external(TabSelection<SelectionValue>)
    }

    /// The builder's tabs and sections, in builder order.
    ///
    /// ```swift
    /// model.items.count  //=> 3   // Home, Reports, Categories
    /// ```
    public let items: [TabContentItem<SelectionValue>]

    /// The presentation style; only `.sidebarAdaptable` applies a customization.
    ///
    /// ```swift
    /// model.style  //=> .sidebarAdaptable
    /// ```
    public private(set) var style: TabViewStyle = .automatic

    private var selectionStorage: SelectionStorage

    /// Creates a model that owns its selection, starting at `selection`.
    ///
    /// ```swift
    /// let model = TabViewModel(selection: 2) {
    ///     Tab("Home", systemImage: "house", value: 1)
    ///     Tab("Search", systemImage: "magnifyingglass", value: 2)
    /// }
    /// model.selectedTab?.title  //=> "Search"
    /// ```
    public init(selection: SelectionValue, @TabContentBuilder<SelectionValue> content: () -> AnyTabContent<SelectionValue>) {
        selectionStorage = .owned(selection)
        items = content().tabContentItems
    }

    /// Creates a model whose selection is read and written through `selection`.
    ///
    /// ```swift
    /// var current = 1
    /// let model = TabViewModel(selection: TabSelection(get: { current }, set: { current = $0 })) {
    ///     Tab("Home", systemImage: "house", value: 1)
    /// }
    /// ```
    public init(
        selection: TabSelection<SelectionValue>,
        @TabContentBuilder<SelectionValue> content: () -> AnyTabContent<SelectionValue>
    ) {
        selectionStorage = .external(selection)
        items = content().tabContentItems
    }

    /// The value of the selected tab.
    ///
    /// ```swift
    /// model.selection = 3
    /// model.selectedTab?.title  //=> "Profile"
    /// ```
    public var selection: SelectionValue {
        get {
            switch selectionStorage {
            case .owned(let value): value
            case .external(let binding): binding.wrappedValue
            }
        }
        set {
            switch selectionStorage {
            case .owned: selectionStorage = .owned(newValue)
            case .external(let binding): binding.wrappedValue = newValue
            }
        }
    }

    /// Sets the presentation style, like SwiftUI's `.tabViewStyle(_:)`, and returns the model.
    ///
    /// ```swift
    /// let model = TabViewModel(selection: 1) { Tab("Home", systemImage: "house", value: 1) }
    ///     .tabViewStyle(.sidebarAdaptable)
    /// ```
    @discardableResult
    public func tabViewStyle(_ style: TabViewStyle) -> TabViewModel {
        self.style = style
        return self
    }

    /// Every tab in builder order, sections flattened.
    ///
    /// ```swift
    /// model.tabs.map(\.title)  //=> ["Home", "Reports", "Climate", "Lights"]
    /// ```
    public var tabs: [Tab<SelectionValue>] {
        items.flatMap(\.tabs)
    }

    /// The first tab whose value equals ``selection``, whether or not it is hidden.
    ///
    /// ```swift
    /// model.selection = 2
    /// model.selectedTab?.title  //=> "Reports"
    /// ```
    public var selectedTab: Tab<SelectionValue>? {
        let selection = selection
        return tabs.first { $0.value == selection }
    }

    /// The sidebar the user sees with this customization; with a style other than
    /// `.sidebarAdaptable` the customization is ignored, as in SwiftUI.
    ///
    /// ```swift
    /// model.sidebar(customization: customization).visibleTabs.map(\.title)  //=> ["Home", "Lights", "Climate"]
    /// ```
    public func sidebar(customization: TabViewCustomization) -> ResolvedSidebar<SelectionValue> {
        SidebarResolver.resolve(items, customization: style == .sidebarAdaptable ? customization : TabViewCustomization())
    }

    /// Applies a drag of a tab to position `index` of a section to `customization`.
    ///
    /// ```swift
    /// try model.moveTab("lights", toSection: "categories", at: 0, in: &customization)
    /// customization[section: "categories"].tabOrder  //=> ["lights", "climate"]
    /// ```
    public func moveTab(
        _ id: String,
        toSection sectionID: String,
        at index: Int,
        in customization: inout TabViewCustomization
    ) throws(TabCustomizationError) {
        try customization.moveTab(id, toSection: sectionID, at: index, in: sidebar(customization: customization))
    }

    /// Applies a drag of a section to position `index` among the sections to `customization`.
    ///
    /// ```swift
    /// try model.moveSection("library", to: 0, in: &customization)
    /// customization.sectionOrder  //=> ["library", "categories"]
    /// ```
    public func moveSection(
        _ id: String,
        to index: Int,
        in customization: inout TabViewCustomization
    ) throws(TabCustomizationError) {
        try customization.moveSection(id, to: index, in: sidebar(customization: customization))
    }
}
