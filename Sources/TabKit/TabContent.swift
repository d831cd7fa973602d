/// Anything a ``TabContentBuilder`` accepts: a ``Tab``, a ``TabSection``, an ``AnyTabContent``,
/// or your own type that lists the items it contributes.
///
/// ```swift
/// struct SettingsTabs: TabContent {
///     var tabContentItems: [TabContentItem<Int>] {
///         [.tab(Tab("Settings", systemImage: "gear", value: 9).customizationID("settings"))]
///     }
/// }
/// TabViewModel(selection: 1) {
///     Tab("Home", systemImage: "house", value: 1)
///     SettingsTabs()
/// }.tabs.map(\.title)  //=> ["Home", "Settings"]
/// ```
public protocol TabContent<SelectionValue> {
    /// The type of the `value` that selects one of these tabs.
    associatedtype SelectionValue: Hashable

    /// The tabs and sections this content contributes, in builder order.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).tabContentItems.count  //=> 1
    /// ```
    var tabContentItems: [TabContentItem<SelectionValue>] { get }
}
