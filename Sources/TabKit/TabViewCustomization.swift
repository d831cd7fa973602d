/// The changes a user made to a `.sidebarAdaptable` sidebar: which tabs are hidden or shown, the
/// order of the tabs inside each section, and the order of the sections.
///
/// Same API shape as SwiftUI's `TabViewCustomization`, as a plain value you can store anywhere
/// (a `@Stored` key, a file, a database). IDs are the strings given to `.customizationID(_:)`.
/// An empty customization means "the builder's order and default visibility".
///
/// IDs the app no longer declares are kept in the value (a downgraded app must not erase what a
/// newer version stored) and ignored when the sidebar is resolved.
///
/// ```swift
/// var customization = TabViewCustomization()
/// customization[tab: "reports"].sidebarVisibility = .hidden
/// customization[section: "categories"].tabOrder = ["lights", "climate"]
/// customization[tab: "reports"].sidebarVisibility               //=> .hidden
/// customization.resetVisibility()
/// customization[tab: "reports"].sidebarVisibility               //=> .automatic
/// customization[section: "categories"].tabOrder                //=> ["lights", "climate"]
/// ```
public struct TabViewCustomization: Hashable, Sendable {
    // Entries equal to the default are never stored, so "customized back to default" == "never customized".
    var tabs: [String: TabCustomization] = [:]
    var sections: [String: SectionCustomization] = [:]

    /// The user's order of the sections, by customization ID; `nil` means the builder's order.
    ///
    /// Only sections move: top-level tabs keep their builder positions and sections are dealt into
    /// the places sections occupy in the builder, in this order.
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// customization.sectionOrder = ["library", "categories"]
    /// customization.sectionOrder  //=> ["library", "categories"]
    /// ```
    public var sectionOrder: [String]?

    /// Creates an empty customization: builder order, default visibility.
    ///
    /// ```swift
    /// TabViewCustomization() == TabViewCustomization()  //=> true
    /// ```
    public init() {}

    /// The customization of the tab with this customization ID.
    ///
    /// Reading an ID that was never customized gives `.automatic` visibility; writing goes
    /// straight into this value.
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// customization[tab: "home"].sidebarVisibility = .hidden
    /// customization[tab: "home"].sidebarVisibility  //=> .hidden
    /// customization[tab: "other"].sidebarVisibility  //=> .automatic
    /// ```
    public subscript(tab id: String) -> TabCustomization {
        get { tabs[id] ?? TabCustomization() }
        set { tabs[id] = newValue.isDefault ? nil : newValue }
    }

    /// The customization of the section with this customization ID.
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// customization[section: "categories"].tabOrder = ["lights", "climate"]
    /// customization[section: "categories"].resetTabOrder()
    /// customization[section: "categories"].tabOrder  //=> nil
    /// ```
    public subscript(section id: String) -> SectionCustomization {
        get { sections[id] ?? SectionCustomization() }
        set { sections[id] = newValue.isDefault ? nil : newValue }
    }

    /// The sidebar visibility of a tab: SwiftUI's first (iOS 18.0) spelling of `self[tab: id].sidebarVisibility`.
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// customization[sidebarVisibility: "alerts"] = .hidden
    /// customization[tab: "alerts"].sidebarVisibility  //=> .hidden
    /// ```
    public subscript(sidebarVisibility id: String) -> Visibility {
        get { self[tab: id].sidebarVisibility }
        set { self[tab: id].sidebarVisibility = newValue }
    }

    /// Puts every tab back to its default visibility, keeping all orders.
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// customization[tab: "reports"].sidebarVisibility = .hidden
    /// customization.resetVisibility()
    /// customization[tab: "reports"].sidebarVisibility  //=> .automatic
    /// ```
    public mutating func resetVisibility() {
        tabs = [:]
    }

    /// Puts all ordering back to the builder's: the order of the sections and the order of the
    /// tabs inside every section. Visibilities are kept.
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// customization.sectionOrder = ["library", "categories"]
    /// customization[section: "categories"].tabOrder = ["lights", "climate"]
    /// customization.resetSectionOrder()
    /// customization.sectionOrder                     //=> nil
    /// customization[section: "categories"].tabOrder  //=> nil
    /// ```
    public mutating func resetSectionOrder() {
        sectionOrder = nil
        sections = [:]
    }

    /// The IDs of the tabs that have a stored visibility, sorted; includes IDs the app no longer has.
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// customization[tab: "reports"].sidebarVisibility = .hidden
    /// customization.customizedTabIDs  //=> ["reports"]
    /// ```
    public var customizedTabIDs: [String] {
        tabs.keys.sorted()
    }

    /// The IDs of the sections that have a stored tab order, sorted; includes IDs the app no longer has.
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// customization[section: "categories"].tabOrder = ["lights", "climate"]
    /// customization.customizedSectionIDs  //=> ["categories"]
    /// ```
    public var customizedSectionIDs: [String] {
        sections.keys.sorted()
    }
}
