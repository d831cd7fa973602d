import StoredKit
import TabKit

/// The interactive screen's state machine: which row the cursor is on, the status line, the
/// room-name prompt, and what each key does to the stored customization.
///
/// It knows nothing of terminals: keys come in, ``SmartHome`` writes go out, and the renderer
/// draws what it holds. The cursor follows a tab by its selection value, so it stays on the tab
/// the person moved, and on the same tab when another process reorders the sidebar.
///
/// ```swift
/// var state = InteractiveSidebar(app: app)
/// state.handle(.down)
/// state.handle(.space)   // hides the tab under the cursor, in the store
/// state.status.text      //=> "Reports is hidden. Space shows it again."
/// ```
struct InteractiveSidebar {
    /// What the status line says and why.
    struct Status: Equatable {
        enum Kind: Equatable { case info, done, refused, external }
        var text: String
        var kind: Kind
    }

    /// What the loop should do after a key.
    enum Outcome: Equatable {
        case keepGoing
        case quit(status: Int32)
    }

    let app: SmartHome
    private(set) var cursorValue: Int
    private var cursorIndex = 0
    /// The room name being typed after `a`, or `nil` when no prompt is open.
    private(set) var prompt: String?
    var status = Status(
        text: "[ ] move the tab, { } its section; r/R reset its/every order, v visibility.",
        kind: .info)

    init(app: SmartHome) {
        self.app = app
        cursorValue = app.selection
        if let summary = app.locks.summary { status = Status(text: summary, kind: .info) }
    }

    /// The tab under the cursor; the cursor moves to a neighbour when its tab disappears.
    mutating func cursorTab(in sidebar: ResolvedSidebar<Int>) -> ResolvedTab<Int>? {
        let tabs = sidebar.allTabs
        if let index = tabs.firstIndex(where: { $0.value == cursorValue }) {
            cursorIndex = index
        } else if !tabs.isEmpty {
            cursorIndex = min(cursorIndex, tabs.count - 1)
            cursorValue = tabs[cursorIndex].value
        }
        return tabs.isEmpty ? nil : tabs[cursorIndex]
    }

    /// Applies one key; unknown keys change nothing.
    @discardableResult
    mutating func handle(_ key: Key) -> Outcome {
        if prompt != nil { return handlePromptKey(key) }
        if key == .character("q") { return .quit(status: 0) }
        if key == .control("c") { return .quit(status: 130) }
        let sidebar = app.sidebar
        guard let tab = cursorTab(in: sidebar) else { return .keepGoing }
        let id = tab.customizationID ?? ""
        let app = app
        switch key {
        case .up, .character("k"): moveCursor(by: -1, in: sidebar)
        case .down, .character("j"): moveCursor(by: 1, in: sidebar)
        case .enter:
            status = Self.outcome {
                try app.select(tab.value)
                return "Opened \(tab.title)."
            }
        case .space:
            status = Self.outcome {
                let (title, hidden) = try app.setVisibility(of: id, hidden: nil)
                return hidden ? "\(title) is hidden. Space shows it again." : "\(title) is shown."
            }
        case .character("["), .shiftUp: status = Self.outcome { try app.moveTab(id, by: -1) }
        case .character("]"), .shiftDown: status = Self.outcome { try app.moveTab(id, by: 1) }
        case .character("{"), .altUp: status = Self.outcome { try app.moveSection(holding: id, by: -1) }
        case .character("}"), .altDown: status = Self.outcome { try app.moveSection(holding: id, by: 1) }
        case .character("r"): status = Self.outcome { try app.resetTabOrder(ofSectionHolding: id) }
        case .character("R"):
            status = Self.outcome {
                try app.resetSectionOrder()
                return "Every section and tab is back in the app's order."
            }
        case .character("v"):
            status = Self.outcome {
                try app.resetVisibility()
                return "Every tab is shown as the app declares it."
            }
        case .character("a"):
            // Refused before the prompt opens: a locked room list would only refuse the name after it was typed.
            if let file = app.forcedFile(of: StoredKeys.rooms.name) {
                status = Status(text: SmartHome.lockedMessage(key: StoredKeys.rooms.name, file: file), kind: .refused)
            } else {
                prompt = ""
                status = Status(text: "Name the new room, then Enter (Esc cancels).", kind: .info)
            }
        case .character("d"): removeRoom(under: tab)
        default: break
        }
        return .keepGoing
    }

    /// Says on the status line that another process changed the store.
    mutating func noteExternalChange(_ description: String) {
        status = Status(text: "From another process: " + description, kind: .external)
    }

    /// Says on the status line that the administrator's forced file changed: what it locks now,
    /// or that it cannot be read (`problem`, a warning).
    mutating func noteAdministratorChange(_ description: String, problem: Bool = false) {
        status = Status(text: "From the administrator: " + description, kind: problem ? .refused : .external)
    }

    /// Says on the status line what became of a change made here once the server saw it: it lost
    /// to a later one made elsewhere, the server refused it, or its stamp was clamped (a warning).
    mutating func noteSyncOutcome(_ description: String) {
        status = Status(text: description, kind: .refused)
    }

    private mutating func moveCursor(by offset: Int, in sidebar: ResolvedSidebar<Int>) {
        let tabs = sidebar.allTabs
        guard !tabs.isEmpty else { return }
        cursorIndex = min(max(cursorIndex + offset, 0), tabs.count - 1)
        cursorValue = tabs[cursorIndex].value
    }

    private mutating func handlePromptKey(_ key: Key) -> Outcome {
        let text = prompt ?? ""
        switch key {
        case .character(let character) where text.count < Room.maximumNameLength: prompt = text + String(character)
        case .space where text.count < Room.maximumNameLength: prompt = text + " "
        case .backspace: prompt = String(text.dropLast())
        case .escape, .control("c"):
            prompt = nil
            status = Status(text: "No room added.", kind: .info)
        case .enter:
            prompt = nil
            let app = app
            var added: Room?
            status = Self.outcome {
                let room = try app.addRoom(text)
                added = room
                return "Added \(room.name) (\(room.customizationID)); d removes it, and it keeps its place if added back."
            }
            if let added { cursorValue = added.selectionValue }
        default: break
        }
        return .keepGoing
    }

    private mutating func removeRoom(under tab: ResolvedTab<Int>) {
        guard let id = tab.customizationID, let room = app.room(withCustomizationID: id) else {
            status = Status(text: "\(tab.title) is part of the app; only rooms can be removed (d).", kind: .refused)
            return
        }
        let app = app
        status = Self.outcome {
            try app.removeRoom(room.name)
            return "Removed \(room.name). Add it back with a: it comes back as you left it."
        }
    }

    /// Runs a store change and puts its outcome on the status line: a refusal as the app's
    /// sentence, a failed write as the store's error (the screen stays up either way).
    private static func outcome(of change: () throws -> String) -> Status {
        do {
            return Status(text: try change(), kind: .done)
        } catch DemoError.refused(let reason) {
            return Status(text: reason, kind: .refused)
        } catch {
            return Status(text: "Not saved: \(error)", kind: .refused)
        }
    }
}
