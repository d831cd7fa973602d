/// A tab: a title, an image name, the selection value that shows it, and its content.
///
/// Give it a `customizationID` to let the user hide or move it; without one it always appears
/// with its default visibility, after the tab that precedes it in the builder.
///
/// ```swift
/// let tab = Tab("Home", systemImage: "house", value: 1) { "Welcome home" }
///     .customizationID("home")
///     .defaultVisibility(.visible, for: .sidebar)
/// tab.customizationID  //=> "home"
/// tab.content()        //=> "Welcome home"
/// ```
public struct Tab<SelectionValue: Hashable>: TabContent {
    /// The label shown in the sidebar and tab bar.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).title  //=> "Home"
    /// ```
    public let title: String

    /// The SF Symbols name of the tab's image, kept for code shared with SwiftUI.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).systemImage  //=> "house"
    /// ```
    public let systemImage: String

    /// The selection value that shows this tab.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).value  //=> 1
    /// ```
    public let value: SelectionValue

    /// The key of this tab in a ``TabViewCustomization``; `nil` means the tab cannot be customized.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).customizationID  //=> nil
    /// ```
    public private(set) var customizationID: String?

    private var defaultVisibilities: [TabPlacement: Visibility] = [:]
    private var customizationBehaviors: [TabPlacement: TabCustomizationBehavior] = [:]
    private let makeContent: () -> String

    /// Creates a tab whose content is its title.
    ///
    /// ```swift
    /// Tab("Search", systemImage: "magnifyingglass", value: 2).content()  //=> "Search"
    /// ```
    public init(_ title: String, systemImage: String, value: SelectionValue) {
        self.init(title, systemImage: systemImage, value: value) { title }
    }

    /// Creates a tab whose content is produced on demand, as SwiftUI builds a tab's view lazily.
    ///
    /// ```swift
    /// Tab("Lights", systemImage: "lightbulb", value: 3) { 4 }.content()  //=> "4"
    /// ```
    public init<Content: CustomStringConvertible>(
        _ title: String,
        systemImage: String,
        value: SelectionValue,
        content: @escaping () -> Content
    ) {
        self.title = title
        self.systemImage = systemImage
        self.value = value
        self.makeContent = { content().description }
    }

    /// Produces the tab's content.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1) { "Welcome" }.content()  //=> "Welcome"
    /// ```
    public func content() -> String {
        makeContent()
    }

    /// This tab as a builder item.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).tabContentItems.count  //=> 1
    /// ```
    public var tabContentItems: [TabContentItem<SelectionValue>] {
        [.tab(self)]
    }

    /// Returns the tab with the ID under which its customization is stored.
    ///
    /// IDs must be unique in a tab view and stable across app versions.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).customizationID("home").customizationID  //=> "home"
    /// ```
    public func customizationID(_ id: String) -> Tab {
        var copy = self
        copy.customizationID = id
        return copy
    }

    /// Returns the tab with the visibility it has in these placements until the user changes it.
    ///
    /// ```swift
    /// Tab("Alerts", systemImage: "bell", value: 4)
    ///     .defaultVisibility(.hidden, for: .sidebar)
    ///     .defaultVisibility(in: .sidebar)  //=> .hidden
    /// ```
    public func defaultVisibility(_ visibility: Visibility, for placements: TabPlacement...) -> Tab {
        var copy = self
        for placement in placements {
            copy.defaultVisibilities[placement] = visibility
        }
        return copy
    }

    /// Returns the tab with how much the user may customize it in these placements.
    ///
    /// ```swift
    /// Tab("Settings", systemImage: "gear", value: 9)
    ///     .customizationBehavior(.disabled, for: .sidebar, .tabBar)
    ///     .customizationBehavior(in: .sidebar)  //=> .disabled
    /// ```
    public func customizationBehavior(_ behavior: TabCustomizationBehavior, for placements: TabPlacement...) -> Tab {
        var copy = self
        for placement in placements {
            copy.customizationBehaviors[placement] = behavior
        }
        return copy
    }

    /// The visibility set with `defaultVisibility(_:for:)` for a placement, `.automatic` if none.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).defaultVisibility(in: .sidebar)  //=> .automatic
    /// ```
    public func defaultVisibility(in placement: TabPlacement) -> Visibility {
        defaultVisibilities[placement] ?? .automatic
    }

    /// The behavior set with `customizationBehavior(_:for:)` for a placement, `.automatic` if none.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).customizationBehavior(in: .tabBar)  //=> .automatic
    /// ```
    public func customizationBehavior(in placement: TabPlacement) -> TabCustomizationBehavior {
        customizationBehaviors[placement] ?? .automatic
    }
}
