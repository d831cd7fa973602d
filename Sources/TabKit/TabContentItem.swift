/// One element of a tab builder: a tab at the top level, or a section of tabs.
///
/// ```swift
/// let items = AnyTabContent<Int> {
///     Tab("Home", systemImage: "house", value: 1)
///     TabSection("Categories") { Tab("Lights", systemImage: "lightbulb", value: 2) }
/// }.tabContentItems
/// if case .section(let section) = items[1] { section.title }  //=> "Categories"
/// ```
public enum TabContentItem<SelectionValue: Hashable> {
    /// A tab outside any section.
    case tab(Tab<SelectionValue>)
    /// A section and its tabs.
    case section(TabSection<SelectionValue>)

    var tabs: [Tab<SelectionValue>] {
        switch self {
        case .tab(let tab): [tab]
        case .section(let section): section.tabs
        }
    }
}
