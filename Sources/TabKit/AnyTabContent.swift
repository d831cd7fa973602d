/// Tab content whose concrete type is erased but whose selection type is kept, so a computed
/// property or a function can return tabs and the builder can mix them with literal tabs.
///
/// ```swift
/// var dynamicTab: AnyTabContent<Int> {
///     AnyTabContent(Tab("Profile", systemImage: "person", value: 3).customizationID("profile"))
/// }
/// let model = TabViewModel(selection: 3) {
///     Tab("Home", systemImage: "house", value: 1)
///     dynamicTab
/// }
/// model.selectedTab?.title  //=> "Profile"
/// ```
public struct AnyTabContent<SelectionValue: Hashable>: TabContent {
    /// The tabs and sections of the wrapped content, in builder order.
    ///
    /// ```swift
    /// AnyTabContent(Tab("Home", systemImage: "house", value: 1)).tabContentItems.count  //=> 1
    /// ```
    public let tabContentItems: [TabContentItem<SelectionValue>]

    /// Wraps any tab content with the same selection type.
    ///
    /// ```swift
    /// AnyTabContent(TabSection("Categories") { Tab("Lights", systemImage: "lightbulb", value: 4) })
    /// ```
    public init<Content: TabContent>(_ content: Content) where Content.SelectionValue == SelectionValue {
        tabContentItems = content.tabContentItems
    }

    /// Wraps the result of a tab builder.
    ///
    /// ```swift
    /// AnyTabContent<Int> {
    ///     Tab("Home", systemImage: "house", value: 1)
    ///     Tab("Search", systemImage: "magnifyingglass", value: 2)
    /// }.tabContentItems.count  //=> 2
    /// ```
    public init(@TabContentBuilder<SelectionValue> _ content: () -> AnyTabContent<SelectionValue>) {
        tabContentItems = content().tabContentItems
    }

    init(items: [TabContentItem<SelectionValue>]) {
        tabContentItems = items
    }
}
