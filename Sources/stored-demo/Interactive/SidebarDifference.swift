import TabKit

/// Says in a few words what another process changed, for the status line; `nil` when nothing
/// that shows changed (the status line then keeps what it said).
///
/// ```swift
/// SidebarDifference.describe(from: before, to: after, selection: (1, 1))  //=> "Climate hidden."
/// ```
enum SidebarDifference {
    static func describe(
        from old: ResolvedSidebar<Int>, to new: ResolvedSidebar<Int>, selection: (old: Int, new: Int)
    ) -> String? {
        let before = Dictionary(old.allTabs.map { ($0.value, $0) }) { first, _ in first }
        let remaining = Set(new.allTabs.map(\.value))
        var parts: [String] = []
        for tab in new.allTabs {
            if let previous = before[tab.value] {
                if previous.isVisible != tab.isVisible { parts.append("\(tab.title) \(tab.isVisible ? "shown" : "hidden")") }
            } else {
                parts.append("\(tab.title) added")
            }
        }
        parts += old.allTabs.filter { !remaining.contains($0.value) }.map { "\($0.title) removed" }
        if parts.isEmpty,
            old.allTabs.map(\.value) != new.allTabs.map(\.value) || old.sections.map(\.title) != new.sections.map(\.title)
        {
            parts.append("the order changed")
        }
        if selection.old != selection.new, let opened = new.allTabs.first(where: { $0.value == selection.new }) {
            parts.append("\(opened.title) opened")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ") + "."
    }
}
