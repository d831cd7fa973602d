/// The sidebar a user sees: top-level tabs and sections in order, each tab with its visibility.
///
/// Hidden tabs are included (a sidebar in edit mode lists them unchecked); use ``visibleTabs``
/// for what is shown outside edit mode. `print(sidebar)` gives the text form.
///
/// ```swift
/// let sidebar = model.sidebar(customization: customization)
/// sidebar.allTabs.map(\.title)      //=> ["Home", "Reports", "Lights", "Climate"]
/// sidebar.visibleTabs.map(\.title)  //=> ["Home", "Lights", "Climate"]
/// ```
public struct ResolvedSidebar<SelectionValue: Hashable>: Hashable {
    /// One row at the top level of the sidebar.
    ///
    /// ```swift
    /// if case .section(let section) = sidebar.entries[2] { section.title }  //=> "Categories"
    /// ```
    public enum Entry: Hashable {
        /// A tab outside any section.
        case tab(ResolvedTab<SelectionValue>)
        /// A section with its tabs.
        case section(ResolvedSection<SelectionValue>)
    }

    /// The top-level rows in order.
    ///
    /// ```swift
    /// sidebar.entries.count  //=> 3   // Home, Reports, Categories
    /// ```
    public let entries: [Entry]

    /// The sections in order.
    ///
    /// ```swift
    /// sidebar.sections.map(\.title)  //=> ["Categories"]
    /// ```
    public var sections: [ResolvedSection<SelectionValue>] {
        entries.compactMap { entry in
            if case .section(let section) = entry { section } else { nil }
        }
    }

    /// Every tab in the order the user sees them, hidden ones included.
    ///
    /// ```swift
    /// sidebar.allTabs.map(\.title)  //=> ["Home", "Reports", "Lights", "Climate"]
    /// ```
    public var allTabs: [ResolvedTab<SelectionValue>] {
        entries.flatMap { entry in
            switch entry {
            case .tab(let tab): [tab]
            case .section(let section): section.tabs
            }
        }
    }

    /// The tabs that are shown, in order.
    ///
    /// ```swift
    /// sidebar.visibleTabs.map(\.title)  //=> ["Home", "Lights", "Climate"]
    /// ```
    public var visibleTabs: [ResolvedTab<SelectionValue>] {
        allTabs.filter(\.isVisible)
    }

    /// The tab with this customization ID.
    ///
    /// ```swift
    /// sidebar.tab("reports")?.isVisible  //=> false
    /// ```
    public func tab(_ customizationID: String) -> ResolvedTab<SelectionValue>? {
        allTabs.first { $0.customizationID == customizationID }
    }

    /// The section with this customization ID.
    ///
    /// ```swift
    /// sidebar.section("categories")?.tabs.map(\.title)  //=> ["Lights", "Climate"]
    /// ```
    public func section(_ customizationID: String) -> ResolvedSection<SelectionValue>? {
        sections.first { $0.customizationID == customizationID }
    }
}

extension ResolvedSidebar: Sendable where SelectionValue: Sendable {}
extension ResolvedSidebar.Entry: Sendable where SelectionValue: Sendable {}
