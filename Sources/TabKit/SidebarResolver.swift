/// Turns builder items and a customization into the sidebar a user sees.
///
/// Rules (each has a test in SidebarResolutionTests):
/// - Nothing customized: builder order; a tab is hidden only if `defaultVisibility(.hidden, for: .sidebar)`.
/// - A stored visibility other than `.automatic` wins over the default, for tabs with an ID and
///   sidebar behavior `.automatic`.
/// - A section's stored `tabOrder` orders its tabs; `sectionOrder` orders the sections, which are
///   dealt into the places sections occupy in the builder. Top-level tabs never move, so every
///   drag can be undone by dragging back.
/// - A tab listed in another section's stored order (the user dragged it there) appears in that
///   section, unless its own section's stored order lists it too.
/// - Unlisted tabs and sections follow ``StoredOrder``: right after their builder predecessor.
/// - Stored IDs the app does not declare are skipped.
enum SidebarResolver {
    private struct PlacedTab<SelectionValue: Hashable> {
        let tab: Tab<SelectionValue>
        let builderSection: Int
        let home: Int
    }

    static func resolve<SelectionValue>(
        _ items: [TabContentItem<SelectionValue>],
        customization: TabViewCustomization
    ) -> ResolvedSidebar<SelectionValue> {
        let sections = items.compactMap { item -> TabSection<SelectionValue>? in
            if case .section(let section) = item { section } else { nil }
        }
        let storedOrders = sections.map { section in
            section.customizationID.flatMap { customization[section: $0].tabOrder }
        }

        // The section each tab lives in, in builder order.
        let placed = sections.enumerated().flatMap { sectionIndex, section in
            section.tabs.map { tab in
                PlacedTab(tab: tab, builderSection: sectionIndex, home: home(of: tab, builderSection: sectionIndex, storedOrders))
            }
        }

        let resolvedSections = sections.indices.map { index in
            // Tabs dragged in from elsewhere come after the section's own tabs, so the builder
            // predecessor of an unlisted tab is always one of the section's own.
            let own = placed.filter { $0.home == index && $0.builderSection == index }
            let draggedIn = placed.filter { $0.home == index && $0.builderSection != index }
            let ordered = StoredOrder.arrange(own + draggedIn, by: storedOrders[index]) { reorderableID(of: $0.tab) }
            let section = sections[index]
            return ResolvedSection(
                title: section.title,
                customizationID: section.customizationID,
                canReorder: section.customizationID != nil && section.customizationBehavior(in: .sidebar).allowsReordering,
                tabs: ordered.map { resolve($0.tab, customization: customization, isInSection: true) }
            )
        }
        var orderedSections = StoredOrder.arrange(resolvedSections, by: customization.sectionOrder) { section in
            section.canReorder ? section.customizationID : nil
        }[...]

        var entries: [ResolvedSidebar<SelectionValue>.Entry] = []
        for item in items {
            switch item {
            case .tab(let tab):
                // Top-level tabs keep their builder position; sections fill the section places in order.
                entries.append(.tab(resolve(tab, customization: customization, isInSection: false)))
            case .section:
                if let section = orderedSections.popFirst() {
                    entries.append(.section(section))
                }
            }
        }
        return ResolvedSidebar(entries: entries)
    }

    private static func home<SelectionValue>(
        of tab: Tab<SelectionValue>,
        builderSection: Int,
        _ storedOrders: [[String]?]
    ) -> Int {
        guard let id = reorderableID(of: tab) else { return builderSection }
        if storedOrders[builderSection]?.contains(id) == true {
            return builderSection
        }
        return storedOrders.firstIndex { $0?.contains(id) == true } ?? builderSection
    }

    private static func reorderableID<SelectionValue>(of tab: Tab<SelectionValue>) -> String? {
        tab.customizationBehavior(in: .sidebar).allowsReordering ? tab.customizationID : nil
    }

    private static func resolve<SelectionValue>(
        _ tab: Tab<SelectionValue>,
        customization: TabViewCustomization,
        isInSection: Bool
    ) -> ResolvedTab<SelectionValue> {
        let behavior = tab.customizationBehavior(in: .sidebar)
        let canChangeVisibility = tab.customizationID != nil && behavior.allowsVisibilityChange
        let chosen = canChangeVisibility ? tab.customizationID.map { customization[tab: $0].sidebarVisibility } : nil
        let visibility: Visibility =
            switch chosen ?? .automatic {
            case .automatic: tab.defaultVisibility(in: .sidebar) == .hidden ? .hidden : .visible
            case .visible: .visible
            case .hidden: .hidden
            }
        return ResolvedTab(
            title: tab.title,
            systemImage: tab.systemImage,
            value: tab.value,
            customizationID: tab.customizationID,
            visibility: visibility,
            canChangeVisibility: canChangeVisibility,
            canReorder: isInSection && tab.customizationID != nil && behavior.allowsReordering
        )
    }
}
