/// Why a drag in the sidebar could not be applied to a ``TabViewCustomization``.
///
/// ```swift
/// do { try customization.moveTab("nope", toSection: "categories", at: 0, in: sidebar) } catch {
///     print(error)  //=> No tab with customization ID 'nope' is in the sidebar. Pass the ID given to .customizationID(_:).
/// }
/// ```
public enum TabCustomizationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No tab in the resolved sidebar has this customization ID.
    case unknownTab(id: String)
    /// No section in the resolved sidebar has this customization ID.
    case unknownSection(id: String)
    /// The tab or section has `.customizationBehavior(.disabled, for: .sidebar)`.
    case notReorderable(id: String)
    /// The tab is outside any section; top-level tabs keep their builder position.
    case topLevelTab(id: String)

    /// A one-line explanation: what was refused and what to do.
    ///
    /// ```swift
    /// TabCustomizationError.notReorderable(id: "settings").description
    /// //=> 'settings' cannot be moved: its sidebar customization behavior is .disabled.
    /// ```
    public var description: String {
        switch self {
        case .unknownTab(let id):
            "No tab with customization ID '\(id)' is in the sidebar. Pass the ID given to .customizationID(_:)."
        case .unknownSection(let id):
            "No section with customization ID '\(id)' is in the sidebar. Pass the ID given to the TabSection's .customizationID(_:)."
        case .notReorderable(let id):
            "'\(id)' cannot be moved: its sidebar customization behavior is .disabled."
        case .topLevelTab(let id):
            "'\(id)' cannot be moved: it is outside any TabSection. Put it in a TabSection to let users move it."
        }
    }
}
