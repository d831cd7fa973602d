/// A place where a tab can appear in an adaptable tab view.
///
/// Only ``sidebar`` is resolved by TabKit; ``tabBar`` settings are kept on the
/// tab so code written for SwiftUI reads the same.
///
/// ```swift
/// Tab("Alerts", systemImage: "bell", value: 4)
///     .customizationID("alerts")
///     .defaultVisibility(.hidden, for: .sidebar, .tabBar)
/// ```
public struct TabPlacement: Hashable, Sendable, CustomStringConvertible {
    /// The placement's name, for messages and text output.
    ///
    /// ```swift
    /// TabPlacement.sidebar.description  //=> "sidebar"
    /// ```
    public let description: String

    private init(_ name: String) {
        description = name
    }

    /// The list of tabs and sections at the side of a `.sidebarAdaptable` tab view.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).defaultVisibility(.visible, for: .sidebar)
    /// ```
    public static let sidebar = TabPlacement("sidebar")

    /// The compact bar of tabs.
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).customizationBehavior(.disabled, for: .tabBar)
    /// ```
    public static let tabBar = TabPlacement("tabBar")
}
