import Foundation
import StoredKit
import TabKit

/// The changes a person makes to the sidebar, shared by the commands and the interactive screen.
///
/// Each one is a read-modify-write of a `@Stored` key under the store's cross-process lock
/// (`store.update`), worked out against the sidebar as it is at that moment, so two windows
/// moving tabs at once never lose a move. A change the app refuses throws `DemoError.refused`
/// with a sentence for the user; nothing is written then. A key the administrator's forced file
/// holds is refused the same way, naming the file (``update(_:_:)`` in SmartHome+Locks.swift).
extension SmartHome {
    /// Hides (`hidden: true`) or shows (`false`) a tab, or toggles it (`nil`); returns its title
    /// and whether it is hidden now.
    ///
    /// ```swift
    /// try app.setVisibility(of: "reports", hidden: nil)  //=> (title: "Reports", hidden: true)
    /// ```
    @discardableResult
    func setVisibility(of id: String, hidden: Bool?) throws -> (title: String, hidden: Bool) {
        var outcome = (title: id, hidden: false)
        try update(.sidebar) { customization in
            let tab = try changeableTab(id, in: makeModel().sidebar(customization: customization))
            outcome = (tab.title, hidden ?? tab.isVisible)
            customization[tab: id].sidebarVisibility = outcome.hidden ? .hidden : .visible
        }
        return outcome
    }

    /// Moves a tab one place up (`offset` -1) or down (+1); past the end of its section it goes to
    /// the neighbouring section. Returns a sentence saying what moved where.
    ///
    /// ```swift
    /// try app.moveTab("lights", by: -1)  //=> "Moved Lights up."
    /// ```
    func moveTab(_ id: String, by offset: Int) throws -> String {
        var message = ""
        try update(.sidebar) { customization in
            let sidebar = makeModel().sidebar(customization: customization)
            let (tab, sections, sectionIndex, tabIndex) = try placeOfMovableTab(id, in: sidebar)
            let target = tabIndex + offset
            if sections[sectionIndex].tabs.indices.contains(target), let sectionID = sections[sectionIndex].customizationID {
                try customization.moveTab(id, toSection: sectionID, at: target, in: sidebar)
                message = "Moved \(tab.title) \(offset < 0 ? "up" : "down")."
            } else if sections.indices.contains(sectionIndex + offset),
                let sectionID = sections[sectionIndex + offset].customizationID
            {
                let next = sections[sectionIndex + offset]
                try customization.moveTab(id, toSection: sectionID, at: offset < 0 ? next.tabs.count : 0, in: sidebar)
                message = "Moved \(tab.title) to \(next.title)."
            } else {
                throw DemoError.refused("\(tab.title) is already at the \(offset < 0 ? "top" : "bottom").")
            }
        }
        return message
    }

    /// Moves the section that holds tab `id` one place up (-1) or down (+1) among the sections.
    ///
    /// ```swift
    /// try app.moveSection(holding: "room.kitchen", by: -1)  //=> "Moved the Rooms section up."
    /// ```
    func moveSection(holding id: String, by offset: Int) throws -> String {
        var message = ""
        try update(.sidebar) { customization in
            let sidebar = makeModel().sidebar(customization: customization)
            let (section, index) = try sectionHolding(id, in: sidebar)
            guard section.canReorder, let sectionID = section.customizationID else {
                throw DemoError.refused("The \(section.title) section cannot be moved: its customization is disabled.")
            }
            guard sidebar.sections.indices.contains(index + offset) else {
                throw DemoError.refused("The \(section.title) section is already \(offset < 0 ? "first" : "last").")
            }
            try customization.moveSection(sectionID, to: index + offset, in: sidebar)
            message = "Moved the \(section.title) section \(offset < 0 ? "up" : "down")."
        }
        return message
    }

    /// Puts the tabs of the section holding tab `id` back in the app's order (`resetTabOrder()`).
    func resetTabOrder(ofSectionHolding id: String) throws -> String {
        var message = ""
        try update(.sidebar) { customization in
            let (section, _) = try sectionHolding(id, in: makeModel().sidebar(customization: customization))
            guard let sectionID = section.customizationID else { return }
            customization[section: sectionID].resetTabOrder()
            message = "The \(section.title) tabs are back in the app's order."
        }
        return message
    }

    /// Puts the sections (and every section's tabs) back in the app's order (`resetSectionOrder()`).
    func resetSectionOrder() throws {
        try update(.sidebar) { $0.resetSectionOrder() }
    }

    /// Shows every tab as the app declares it (`resetVisibility()`).
    func resetVisibility() throws {
        try update(.sidebar) { $0.resetVisibility() }
    }

    /// Adds a room at the end of the list; returns it.
    ///
    /// ```swift
    /// try app.addRoom("Garage").customizationID  //=> "room.garage"
    /// ```
    @discardableResult
    func addRoom(_ rawName: String) throws -> Room {
        let name = rawName.trimmingCharacters(in: .whitespaces)
        try update(.rooms) { names in
            if let problem = Room.problem(naming: name, among: names.map(Room.init(name:))) {
                throw DemoError.refused(problem)
            }
            names.append(name)
        }
        return Room(name: name)
    }

    /// Removes the room with this name (or slug); its customization stays, for when it comes back.
    ///
    /// ```swift
    /// try app.removeRoom("kitchen").name  //=> "Kitchen"
    /// ```
    @discardableResult
    func removeRoom(_ name: String) throws -> Room {
        let slug = Room(name: name.trimmingCharacters(in: .whitespaces)).slug
        var removed = Room(name: name)
        try update(.rooms) { names in
            guard let index = names.firstIndex(where: { Room(name: $0).slug == slug }) else {
                let list = names.isEmpty ? "there are none" : "they are " + names.joined(separator: ", ")
                throw DemoError.refused("No room is named '\(name)'; \(list).")
            }
            removed = Room(name: names.remove(at: index))
        }
        return removed
    }

    /// The room whose tab has this customization ID.
    func room(withCustomizationID id: String) -> Room? {
        rooms.first { $0.customizationID == id }
    }

    private func changeableTab(_ id: String, in sidebar: ResolvedSidebar<Int>) throws -> ResolvedTab<Int> {
        guard let tab = sidebar.tab(id) else {
            throw DemoError.refused("No tab '\(id)'. Use an ID shown in parentheses.")
        }
        guard tab.canChangeVisibility else {
            throw DemoError.refused("\(tab.title) cannot be hidden: its customization is disabled.")
        }
        return tab
    }

    private func placeOfMovableTab(_ id: String, in sidebar: ResolvedSidebar<Int>) throws -> (
        ResolvedTab<Int>, [ResolvedSection<Int>], Int, Int
    ) {
        guard let tab = sidebar.tab(id) else { throw DemoError.refused("No tab '\(id)'.") }
        let sections = sidebar.sections
        guard let sectionIndex = sections.firstIndex(where: { $0.tabs.contains(tab) }),
            let tabIndex = sections[sectionIndex].tabs.firstIndex(of: tab)
        else {
            let reason = tab.canChangeVisibility ? "tabs outside a section keep their place" : "its customization is disabled"
            throw DemoError.refused("\(tab.title) cannot be moved: \(reason).")
        }
        guard tab.canReorder else { throw DemoError.refused("\(tab.title) cannot be moved: its customization is disabled.") }
        return (tab, sections, sectionIndex, tabIndex)
    }

    private func sectionHolding(_ id: String, in sidebar: ResolvedSidebar<Int>) throws -> (ResolvedSection<Int>, Int) {
        let title = sidebar.tab(id)?.title ?? id
        guard let index = sidebar.sections.firstIndex(where: { $0.tabs.contains { $0.customizationID == id } }) else {
            throw DemoError.refused("\(title) is not in a section: top-level tabs keep their place.")
        }
        return (sidebar.sections[index], index)
    }
}
