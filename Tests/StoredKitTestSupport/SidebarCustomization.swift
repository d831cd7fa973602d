/// The 20-tab sidebar customization that the tests, the benchmark and the allocation budgets all
/// measure: a value shaped like SwiftUI's `TabViewCustomization` (per-tab visibility, pinning,
/// optional badges and titles, each section's tab order).
///
/// ```swift
/// let value = SidebarCustomization.twentyTabs(revision: 1)
/// try StoredValueEncoder().encode(value)  //=> .dictionary(["tabs": ..., "sectionOrders": ..., "revision": .int(1)])
/// ```
public struct SidebarCustomization: Codable, Equatable, Sendable {
    /// Whether a tab shows, as SwiftUI's `Visibility`.
    public enum Visibility: String, Codable, Sendable {
        case automatic, visible, hidden
    }

    /// One tab's customization.
    public struct TabEntry: Codable, Equatable, Sendable {
        /// Shown, hidden, or as the app decides.
        public var visibility: Visibility
        /// Pinned to the top of the sidebar.
        public var isPinned: Bool
        /// A count shown beside the title, when there is one.
        public var badge: Int?
        /// The user's own title, when they gave one.
        public var title: String?
    }

    /// The order of one section's tabs.
    public struct SectionOrder: Codable, Equatable, Sendable {
        /// Which section.
        public var sectionID: String
        /// Its tabs' keys, first to last.
        public var tabOrder: [String]
    }

    /// Every tab's customization, by key (`tab-0` ... `tab-19`).
    public var tabs: [String: TabEntry]
    /// Each section's tab order.
    public var sectionOrders: [SectionOrder]
    /// Changes the value without changing its shape.
    public var revision: Int

    /// Twenty tabs in four sections, with every optional both present and absent somewhere;
    /// `revision` changes the value without changing its shape.
    ///
    /// ```swift
    /// SidebarCustomization.twentyTabs().tabs.count  //=> 20
    /// ```
    public static func twentyTabs(revision: Int = 7) -> SidebarCustomization {
        var tabs: [String: TabEntry] = [:]
        let visibilities: [Visibility] = [.automatic, .visible, .hidden]
        for index in 0..<20 {
            tabs["tab-\(index)"] = TabEntry(
                visibility: visibilities[index % 3],
                isPinned: index % 4 == 0,
                badge: index % 2 == 0 ? index * 3 : nil,
                title: index % 5 == 0 ? nil : "Tab number \(index)"
            )
        }
        let sectionOrders = (0..<4).map { section in
            SectionOrder(sectionID: "section-\(section)", tabOrder: (0..<5).map { "tab-\(section * 5 + $0)" })
        }
        return SidebarCustomization(tabs: tabs, sectionOrders: sectionOrders, revision: revision)
    }
}
