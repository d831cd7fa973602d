/// A tab as the user sees it in the sidebar: where customization and defaults have been applied.
///
/// ```swift
/// let tab = model.sidebar(customization: customization).tab("reports")
/// tab?.visibility  //=> .hidden
/// tab?.isVisible   //=> false
/// ```
public struct ResolvedTab<SelectionValue: Hashable>: Hashable {
    /// The tab's title.
    ///
    /// ```swift
    /// sidebar.tab("home")?.title  //=> "Home"
    /// ```
    public let title: String

    /// The tab's image name.
    ///
    /// ```swift
    /// sidebar.tab("home")?.systemImage  //=> "house"
    /// ```
    public let systemImage: String

    /// The selection value that shows the tab.
    ///
    /// ```swift
    /// sidebar.tab("home")?.value  //=> 1
    /// ```
    public let value: SelectionValue

    /// The tab's customization ID, `nil` for a tab that cannot be customized.
    ///
    /// ```swift
    /// sidebar.tab("home")?.customizationID  //=> "home"
    /// ```
    public let customizationID: String?

    /// `.visible` or `.hidden`, never `.automatic`.
    ///
    /// ```swift
    /// sidebar.tab("home")?.visibility  //=> .visible
    /// ```
    public let visibility: Visibility

    /// Whether the user may hide or show this tab (it has an ID and behavior `.automatic`).
    ///
    /// ```swift
    /// sidebar.tab("settings")?.canChangeVisibility  //=> false   // .customizationBehavior(.disabled, for: .sidebar)
    /// ```
    public let canChangeVisibility: Bool

    /// Whether the user may move this tab: it is in a section, has an ID and a behavior other than `.disabled`.
    ///
    /// ```swift
    /// sidebar.tab("lights")?.canReorder  //=> true
    /// sidebar.tab("home")?.canReorder    //=> false   // top level
    /// ```
    public let canReorder: Bool

    /// Whether the tab is shown.
    ///
    /// ```swift
    /// sidebar.tab("home")?.isVisible  //=> true
    /// ```
    public var isVisible: Bool { visibility != .hidden }
}

extension ResolvedTab: Sendable where SelectionValue: Sendable {}
