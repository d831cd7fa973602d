/// A section as the user sees it in the sidebar, with its tabs in their resolved order.
///
/// ```swift
/// sidebar.section("categories")?.tabs.map(\.title)  //=> ["Lights", "Climate"]
/// ```
public struct ResolvedSection<SelectionValue: Hashable>: Hashable {
    /// The section header.
    ///
    /// ```swift
    /// sidebar.section("categories")?.title  //=> "Categories"
    /// ```
    public let title: String

    /// The section's customization ID, `nil` for a section that cannot be customized.
    ///
    /// ```swift
    /// sidebar.sections.first?.customizationID  //=> "categories"
    /// ```
    public let customizationID: String?

    /// Whether the user may move this section among the sections.
    ///
    /// ```swift
    /// sidebar.section("categories")?.canReorder  //=> true
    /// ```
    public let canReorder: Bool

    /// The section's tabs in resolved order, hidden ones included.
    ///
    /// ```swift
    /// sidebar.section("categories")?.tabs.count  //=> 2
    /// ```
    public let tabs: [ResolvedTab<SelectionValue>]
}

extension ResolvedSection: Sendable where SelectionValue: Sendable {}
