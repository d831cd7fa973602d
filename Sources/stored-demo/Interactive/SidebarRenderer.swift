import Foundation
import StoredKit
import TabKit

/// Draws the interactive screen as a ``Frame``: a title line, the sidebar on the left (sections
/// and tabs as the resolver gives them, hidden tabs unchecked), the opened tab's content pane on
/// the right, the status line and a one-line key help; a shared sidebar also gets a sync line
/// above the status line ("offline — 2 changes not synced yet (never synced)").
///
/// ```swift
/// let frame = SidebarRenderer(style: style, location: ("store", "prefs.sqlite"))
///     .frame(for: &state, model: model, sidebar: model.sidebar(customization: app.customization), locks: app.locks,
///         sync: store.syncState, size: size)
/// try screen.draw(frame, size: size)
/// ```
struct SidebarRenderer {
    /// The smallest screen the layout fits in.
    static let minimumSize = TerminalSize(columns: 80, rows: 24)
    static let sidebarWidth = 30

    let style: ScreenStyle
    /// Where the sidebar is kept, on the right of the title line as "LABEL: PATH": the store file,
    /// or the shared namespace and this window's replica. A path too long keeps its end.
    let location: (label: String, path: String)
    /// Whether the sidebar is shared through a replica (the pane's hint says how to open another window).
    var isShared = false

    private var symbols: ScreenStyle.Symbols { style.symbols }

    /// The whole screen for this state and size; a screen too small gets a message instead.
    func frame(
        for state: inout InteractiveSidebar, model: TabViewModel<Int>, sidebar: ResolvedSidebar<Int>, locks: DemoLocks,
        sync: SyncState? = nil, size: TerminalSize
    ) -> Frame {
        guard size.isAtLeast(Self.minimumSize) else { return tooSmall(size) }
        let cursor = state.cursorTab(in: sidebar)
        let opened = sidebar.allTabs.first { $0.value == model.selection }
        let bodyHeight = size.rows - 5 - (sync == nil ? 0 : 1)
        let paneWidth = size.columns - Self.sidebarWidth - 1
        let left = sidebarRows(sidebar, cursor: cursor, opened: opened, locks: locks, height: bodyHeight)
        let right = paneRows(opened: opened, cursor: cursor, sidebar: sidebar, locks: locks, width: paneWidth) { tab in
            model.tabs.first { $0.value == tab.value }?.content() ?? ""
        }
        var lines: [[Span]] = [titleLine(width: size.columns), [Span(rule(size.columns), .dimmed)]]
        for row in 0..<bodyHeight {
            let sidebarCell = row < left.count ? left[row] : []
            lines.append(
                padded(sidebarCell, to: Self.sidebarWidth) + [Span(symbols.separator, .dimmed)]
                    + (row < right.count ? right[row] : []))
        }
        lines.append([Span(rule(size.columns), .dimmed)])
        if let sync { lines.append(syncLine(sync)) }
        var cursorPosition: (row: Int, column: Int)?
        if let prompt = state.prompt {
            let label = " New room: "
            lines.append([Span(label, .heading), Span(prompt)])
            cursorPosition = (size.rows - 2, label.count + style.columns(of: prompt))
            lines.append(help([("Enter", "add the room"), ("Esc", "cancel"), ("Backspace", "erase")], width: size.columns))
        } else {
            lines.append([Span(" " + state.status.text, attribute(for: state.status.kind))])
            lines.append(help(mainKeys, width: size.columns))
        }
        return Frame(lines: lines, cursor: cursorPosition)
    }

    private var mainKeys: [(String, String)] {
        [
            (symbols.up + "/" + symbols.down, "select"), (symbols.enter, "open"), (style.unicode ? "␣" : "Spc", "hide"),
            ("[]", "move"), ("{}", "section"), ("r/R/v", "reset"), ("a/d", "room"), ("q", "quit"),
        ]
    }

    /// Where the replica stands with the server, as ``SyncState/description`` says it: a warning
    /// while offline, a notice while changes wait, dimmed once everything is synced.
    private func syncLine(_ sync: SyncState) -> [Span] {
        let attribute: Span.Attribute = !sync.isConnected ? .warning : (sync.pendingWrites > 0 ? .notice : .dimmed)
        // Outside a UTF-8 locale the dash would print as `?`, as every character not ASCII does.
        let text = style.unicode ? sync.description : sync.description.replacingOccurrences(of: "—", with: "-")
        return [Span(" " + text, attribute)]
    }

    private func titleLine(width: Int) -> [Span] {
        let title = " Smart Home " + symbols.rule + " stored-demo"
        let room = width - title.count - 2
        let label = location.label + ": "
        var path = label + location.path
        if style.columns(of: path) > room {
            path = label + "..." + String(location.path.suffix(max(room - label.count - 3, 0)))
        }
        return [
            Span(title, .title), Span(String(repeating: " ", count: max(width - title.count - style.columns(of: path) - 1, 1))),
            Span(path, .dimmed),
        ]
    }

    private func sidebarRows(
        _ sidebar: ResolvedSidebar<Int>, cursor: ResolvedTab<Int>?, opened: ResolvedTab<Int>?, locks: DemoLocks, height: Int
    ) -> [[Span]] {
        var rows: [[Span]] = []
        var cursorRow = 0
        func add(_ tab: ResolvedTab<Int>, indent: String) {
            let isCursor = tab.value == cursor?.value
            if isCursor { cursorRow = rows.count }
            let check = tab.isVisible ? "[x] " : "[ ] "
            let marks =
                (tab.value == opened?.value ? " " + symbols.opened : "") + (tab.canChangeVisibility ? "" : " " + symbols.locked)
                + (tab.canChangeVisibility && locks.sidebar != nil ? " " + symbols.forced : "")
            let text = (isCursor ? " " + symbols.selection + " " : "   ") + indent + check + tab.title + marks
            let attribute: Span.Attribute = isCursor ? .selected : (tab.isVisible ? .plain : .dimmed)
            rows.append([Span(style.fit(text, columns: Self.sidebarWidth - 1), attribute)])
        }
        for entry in sidebar.entries {
            switch entry {
            case .tab(let tab): add(tab, indent: "")
            case .section(let section):
                let forced = section.customizationID == "rooms" && locks.rooms != nil  // the section of the room list
                rows.append([Span("   " + section.title + (forced ? " " + symbols.forced : ""), .heading)])
                for tab in section.tabs { add(tab, indent: "  ") }
            }
        }
        // Longer than the screen (many rooms): scroll so the cursor stays in view, and say how
        // many rows are out of it. A marker never covers the cursor: it stays mid-screen then.
        let first = min(max(cursorRow - height / 2, 0), max(rows.count - height, 0))
        var visible = Array(rows.dropFirst(first).prefix(height))
        if first > 0 { visible[0] = [Span("   \(symbols.up) \(first + 1) more", .dimmed)] }
        let below = rows.count - first - height
        if below > 0 { visible[height - 1] = [Span("   \(symbols.down) \(below + 1) more", .dimmed)] }
        return visible
    }

    private func paneRows(
        opened: ResolvedTab<Int>?, cursor: ResolvedTab<Int>?, sidebar: ResolvedSidebar<Int>, locks: DemoLocks, width: Int,
        content: (ResolvedTab<Int>) -> String
    ) -> [[Span]] {
        guard let opened else {
            return [[Span(" Nothing is open.", .heading)], [], [Span(" Select a tab and press \(symbols.enter) to open it.")]]
        }
        var rows: [[Span]] = [[Span(" " + opened.title, .title)], [Span(" " + rule(style.columns(of: opened.title)), .dimmed)]]
        let content = content(opened)
        rows += wrap(content, width: width - 2).map { [Span(" " + $0)] }
        rows.append([])
        let section = sidebar.sections.first { $0.tabs.contains(opened) }?.title ?? "top level"
        let moves =
            !opened.canReorder
            ? (opened.canChangeVisibility ? "no: top-level tabs stay" : "no: customization disabled")
            : (locks.sidebar != nil ? "no: locked by the administrator" : "yes, [ ] and { }")
        let facts = [
            ("ID", opened.customizationID ?? "none"), ("Value", String(opened.value)), ("Section", section),
            ("Shown", opened.isVisible ? "yes" : "no (hidden in the sidebar)"), ("Moves", moves),
        ]
        rows += facts.map { [Span(" " + style.fit($0.0, columns: 9), .dimmed), Span($0.1)] }
        rows.append([])
        if let cursor, cursor.value != opened.value {
            rows.append([Span(" \(symbols.enter) opens \(cursor.title).", .dimmed)])
        }
        if let summary = locks.summary {
            rows += wrap(summary, width: width - 2).map { [Span(" " + $0, .warning)] }
            rows.append([])
        }
        let hint =
            isShared
            ? "Run stored-demo --shared in a second terminal with its own --replica: a change in either shows in both, "
                + "also one made while the server was down."
            : "Run stored-demo in a second terminal on the same store: a change in either shows in both."
        rows += wrap(hint, width: width - 2)
            .map { [Span(" " + $0, .dimmed)] }
        return rows
    }

    private func tooSmall(_ size: TerminalSize) -> Frame {
        let minimum = Self.minimumSize
        let message = [
            "stored-demo needs at least \(minimum.columns)\(symbols.times)\(minimum.rows) characters;",
            "this terminal is \(size.columns)\(symbols.times)\(size.rows).",
            "Enlarge the window, or press q to quit.",
        ]
        let top = max((size.rows - message.count) / 2, 0)
        let lines = Array(repeating: [Span](), count: top) + message.map { [Span(" " + $0, .warning)] }
        return Frame(lines: lines)
    }

    /// Keys and what they do, two spaces apart, or one when that is what fits.
    private func help(_ keys: [(String, String)], width: Int) -> [Span] {
        let full = keys.reduce(0) { $0 + $1.0.count + 1 + $1.1.count + 2 } - 2 + 1
        let gap = full <= width ? "  " : " "
        var spans = [Span(" ")]
        for (index, (key, meaning)) in keys.enumerated() {
            spans += [Span(key, .key), Span(" " + meaning + (index == keys.count - 1 ? "" : gap), .dimmed)]
        }
        return spans
    }

    private func attribute(for kind: InteractiveSidebar.Status.Kind) -> Span.Attribute {
        switch kind {
        case .info: .dimmed
        case .done: .plain
        case .refused: .warning
        case .external: .notice
        }
    }

    private func rule(_ width: Int) -> String { String(repeating: symbols.rule, count: max(width, 0)) }

    private func padded(_ spans: [Span], to width: Int) -> [Span] {
        let used = spans.reduce(0) { $0 + style.columns(of: $1.text) }
        return used >= width ? spans : spans + [Span(String(repeating: " ", count: width - used))]
    }

    /// Breaks `text` into lines of at most `width` characters at spaces.
    private func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, style.columns(of: line) + 1 + style.columns(of: word) > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
