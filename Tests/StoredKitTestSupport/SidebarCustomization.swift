/// The 20-tab sidebar customization that the tests, the benchmark and the allocation budgets all
/// measure: a value shaped like SwiftUI's `TabViewCustomization` (per-tab visibility, pinning,
/// optional badges and titles, each section's tab order).
///
/// ```swift
/// let value = SidebarCustomization.twentyTabs(revision: 1)
/// try StoredValueEncoder().encode(value)  //=> .dictionary(["tabs": ..., "sectionOrders": ..., "revision": .int(1)])
/// ```
public struct SidebarCustomization: Codable, Equatable, Sendable {
    public enum Visibility: String, Codable, Sendable {
        case automatic, visible, hidden
    }

    public struct TabEntry: Codable, Equatable, Sendable {
        public var visibility: Visibility
        public var isPinned: Bool
        public var badge: Int?
        public var title: String?
    }

    public struct SectionOrder: Codable, Equatable, Sendable {
        public var sectionID: String
        public var tabOrder: [String]
    }

    public var tabs: [String: TabEntry]
    public var sectionOrders: [SectionOrder]
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
