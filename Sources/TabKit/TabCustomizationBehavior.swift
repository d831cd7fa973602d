/// How much of a tab (or section) the user may customize in a placement.
///
/// | behavior       | hide / show | reorder |
/// |----------------|-------------|---------|
/// | `.automatic`   | yes         | yes     |
/// | `.reorderable` | no          | yes     |
/// | `.disabled`    | no          | no      |
///
/// A tab without a `customizationID` behaves as `.disabled`: there is no key
/// under which its customization could be stored.
///
/// ```swift
/// Tab("Settings", systemImage: "gear", value: 9)
///     .customizationID("settings")
///     .customizationBehavior(.disabled, for: .sidebar)  // always shown, always in place
/// ```
public struct TabCustomizationBehavior: Hashable, Sendable, CustomStringConvertible {
    /// The behavior's name, for messages and text output.
    ///
    /// ```swift
    /// TabCustomizationBehavior.reorderable.description  //=> "reorderable"
    /// ```
    public let description: String

    private init(_ name: String) {
        description = name
    }

    /// The user may hide, show and reorder the tab (the default).
    ///
    /// ```swift
    /// Tab("Home", systemImage: "house", value: 1).customizationBehavior(.automatic, for: .sidebar)
    /// ```
    public static let automatic = TabCustomizationBehavior("automatic")

    /// The user may move the tab but not hide it; a stored visibility is ignored.
    ///
    /// ```swift
    /// Tab("Inbox", systemImage: "tray", value: 2).customizationBehavior(.reorderable, for: .sidebar)
    /// ```
    public static let reorderable = TabCustomizationBehavior("reorderable")

    /// The user may neither hide nor move the tab; stored visibility and order are ignored.
    ///
    /// ```swift
    /// Tab("Settings", systemImage: "gear", value: 9).customizationBehavior(.disabled, for: .sidebar)
    /// ```
    public static let disabled = TabCustomizationBehavior("disabled")

    var allowsVisibilityChange: Bool { self == .automatic }
    var allowsReordering: Bool { self != .disabled }
}
