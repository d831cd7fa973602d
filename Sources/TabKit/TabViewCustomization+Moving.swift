/// The mutators a sidebar UI calls when the user drags a row.
///
/// They take the sidebar the user is looking at because a stored order lists every tab of the
/// section (as SwiftUI's `tabOrder` does): the first drag in a section must know the order
/// shown before it. IDs in the old order that the app does not declare are kept, each after the
/// ID that preceded it, so a newer version's tabs survive a drag made in an older version.
extension TabViewCustomization {
    /// Moves a tab to position `index` of a section's tabs as shown in `sidebar` (clamped to the
    /// ends), within the section or from another one.
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// try customization.moveTab("lights", toSection: "categories", at: 0, in: model.sidebar(customization: customization))
    /// customization[section: "categories"].tabOrder  //=> ["lights", "climate"]
    /// ```
    public mutating func moveTab<SelectionValue>(
        _ id: String,
        toSection sectionID: String,
        at index: Int,
        in sidebar: ResolvedSidebar<SelectionValue>
    ) throws(TabCustomizationError) {
        guard let tab = sidebar.tab(id) else { throw .unknownTab(id: id) }
        guard sidebar.sections.contains(where: { $0.tabs.contains(tab) }) else { throw .topLevelTab(id: id) }
        guard tab.canReorder else { throw .notReorderable(id: id) }
        guard let section = sidebar.section(sectionID) else { throw .unknownSection(id: sectionID) }

        var rows = section.tabs.filter { $0.customizationID != id }
        rows.insert(tab, at: min(max(index, 0), rows.count))
        let appTabIDs = Set(sidebar.allTabs.compactMap(\.customizationID))
        let oldOrder = self[section: sectionID].tabOrder ?? []
        let newOrder = StoredOrder.merge(rows.compactMap(\.customizationID), keepingUnknownFrom: oldOrder) {
            appTabIDs.contains($0)
        }
        // A tab lives in one section: drop it from every other stored order.
        for otherID in sections.keys where otherID != sectionID {
            sections[otherID]?.tabOrder?.removeAll { $0 == id }
        }
        self[section: sectionID].tabOrder = newOrder
    }

    /// Moves a section to position `index` among the sections as shown in `sidebar` (clamped to the ends).
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// try customization.moveSection("library", to: 0, in: model.sidebar(customization: customization))
    /// customization.sectionOrder  //=> ["library", "categories"]
    /// ```
    public mutating func moveSection<SelectionValue>(
        _ id: String,
        to index: Int,
        in sidebar: ResolvedSidebar<SelectionValue>
    ) throws(TabCustomizationError) {
        guard let section = sidebar.section(id) else { throw .unknownSection(id: id) }
        guard section.canReorder else { throw .notReorderable(id: id) }

        var rows = sidebar.sections.filter { $0.customizationID != id }
        rows.insert(section, at: min(max(index, 0), rows.count))
        let appSectionIDs = Set(sidebar.sections.compactMap(\.customizationID))
        sectionOrder = StoredOrder.merge(rows.compactMap(\.customizationID), keepingUnknownFrom: sectionOrder ?? []) {
            appSectionIDs.contains($0)
        }
    }
}
