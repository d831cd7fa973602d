/// Whether something is shown, hidden, or left to its default.
///
/// Encoded as its name (`"automatic"`, `"visible"`, `"hidden"`) so a stored
/// customization stays readable in a plist or in SQLite JSON.
///
/// ```swift
/// var customization = TabViewCustomization()
/// customization[tab: "reports"].sidebarVisibility = .hidden
/// customization[tab: "reports"].sidebarVisibility  //=> .hidden
/// ```
public enum Visibility: String, Codable, Hashable, Sendable, CaseIterable {
    /// Use the default: the tab's `defaultVisibility(_:for:)`, or visible when it has none.
    case automatic
    /// Always shown.
    case visible
    /// Not shown.
    case hidden
}
