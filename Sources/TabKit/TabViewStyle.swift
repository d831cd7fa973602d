/// How a ``TabViewModel`` presents its tabs; only ``sidebarAdaptable`` honours a customization.
///
/// ```swift
/// let model = TabViewModel(selection: 1) { Tab("Home", systemImage: "house", value: 1) }
///     .tabViewStyle(.sidebarAdaptable)
/// model.style  //=> .sidebarAdaptable
/// ```
public struct TabViewStyle: Hashable, Sendable, CustomStringConvertible {
    /// The style's name, for messages and text output.
    ///
    /// ```swift
    /// TabViewStyle.sidebarAdaptable.description  //=> "sidebarAdaptable"
    /// ```
    public let description: String

    private init(_ name: String) {
        description = name
    }

    /// A plain tab bar: the builder's order and default visibility, no user customization.
    ///
    /// ```swift
    /// TabViewModel(selection: 1) { Tab("Home", systemImage: "house", value: 1) }.style  //=> .automatic
    /// ```
    public static let automatic = TabViewStyle("automatic")

    /// A tab bar that can turn into a sidebar the user customizes (SwiftUI's `.sidebarAdaptable`).
    ///
    /// ```swift
    /// model.tabViewStyle(.sidebarAdaptable)
    /// ```
    public static let sidebarAdaptable = TabViewStyle("sidebarAdaptable")
}
