/// A titled group of tabs in the sidebar.
///
/// With a `customizationID` the user can move the section and reorder the tabs inside it.
/// Sections do not nest: a section written inside another contributes its tabs, not itself.
///
/// ```swift
/// let section = TabSection("Categories") {
///     Tab("Climate", systemImage: "fan", value: 3).customizationID("climate")
///     Tab("Lights", systemImage: "lightbulb", value: 4).customizationID("lights")
/// }
/// .customizationID("categories")
/// section.tabs.map(\.title)  //=> ["Climate", "Lights"]
/// ```
public struct TabSection<SelectionValue: Hashable>: TabContent {
    /// The section header.
    ///
    /// ```swift
    /// TabSection<Int>("Categories") {}.title  //=> "Categories"
    /// ```
    public let title: String

    /// The section's tabs in builder order.
    ///
    /// ```swift
    /// TabSection("Categories") { Tab("Lights", systemImage: "lightbulb", value: 4) }.tabs.count  //=> 1
    /// ```
    public let tabs: [Tab<SelectionValue>]

    /// The key of this section in a ``TabViewCustomization``; `nil` means the section cannot be
    /// moved and its tabs stay in builder order.
    ///
    /// ```swift
    /// TabSection<Int>("Categories") {}.customizationID("categories").customizationID  //=> "categories"
    /// ```
    public private(set) var customizationID: String?

    private var customizationBehaviors: [TabPlacement: TabCustomizationBehavior] = [:]

    /// Creates a section from a tab builder.
    ///
    /// ```swift
    /// TabSection("Categories") {
    ///     Tab("Climate", systemImage: "fan", value: 3)
    ///     if showLights { Tab("Lights", systemImage: "lightbulb", value: 4) }
    /// }
    /// ```
    public init(_ title: String, @TabContentBuilder<SelectionValue> content: () -> AnyTabContent<SelectionValue>) {
        self.title = title
        self.tabs = content().tabContentItems.flatMap(\.tabs)
    }

    /// This section as a builder item.
    ///
    /// ```swift
    /// TabSection<Int>("Categories") {}.tabContentItems.count  //=> 1
    /// ```
    public var tabContentItems: [TabContentItem<SelectionValue>] {
        [.section(self)]
    }

    /// Returns the section with the ID under which its tab order and position are stored.
    ///
    /// ```swift
    /// TabSection<Int>("Categories") {}.customizationID("categories").customizationID  //=> "categories"
    /// ```
    public func customizationID(_ id: String) -> TabSection {
        var copy = self
        copy.customizationID = id
        return copy
    }

    /// Returns the section with whether the user may move it among the sections in these placements.
    ///
    /// The tabs inside keep their own behaviors; `.disabled` here only pins the section itself.
    ///
    /// ```swift
    /// TabSection<Int>("Pinned") {}
    ///     .customizationBehavior(.disabled, for: .sidebar)
    ///     .customizationBehavior(in: .sidebar)  //=> .disabled
    /// ```
    public func customizationBehavior(_ behavior: TabCustomizationBehavior, for placements: TabPlacement...) -> TabSection {
        var copy = self
        for placement in placements {
            copy.customizationBehaviors[placement] = behavior
        }
        return copy
    }

    /// The behavior set with `customizationBehavior(_:for:)` for a placement, `.automatic` if none.
    ///
    /// ```swift
    /// TabSection<Int>("Categories") {}.customizationBehavior(in: .sidebar)  //=> .automatic
    /// ```
    public func customizationBehavior(in placement: TabPlacement) -> TabCustomizationBehavior {
        customizationBehaviors[placement] ?? .automatic
    }
}
