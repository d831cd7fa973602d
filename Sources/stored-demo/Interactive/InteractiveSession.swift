import StoredKit
import TabKit

/// The full-screen sidebar: draws, reads keys, follows other processes' changes, and ends on `q`,
/// Ctrl-C, SIGINT, SIGTERM, SIGHUP, a closed terminal or an error, restoring the terminal's modes
/// and screen on each of them.
///
/// One loop does everything, woken by keys, by the store's observers (another process wrote) and
/// by signals, so the screen is only ever drawn from one thread.
///
/// ```swift
/// let status = try InteractiveSession(app: SmartHome(store: store), storePath: url.path).run()  //=> 0 after q
/// ```
struct InteractiveSession {
    let app: SmartHome
    let storePath: String

    /// The keys whose changes from other processes redraw the screen.
    static let observedKeys = [StoredKeys.sidebar.name, StoredKeys.rooms.name, StoredKeys.selection.name]

    /// Runs until the person quits; returns the exit status (0 for `q`, 128 + the signal number
    /// for a signal, 130 for Ctrl-C, 129 when the terminal closes, as a shell would report them).
    func run() throws -> Int32 {
        let terminal = try RawTerminal(fileDescriptor: RawTerminal.standardInput)
        let screen = TerminalScreen(fileDescriptor: TerminalScreen.standardOutput, style: .fromEnvironment())
        let poller = try EventPoller(input: terminal.fileDescriptor)
        let waker = poller.waker
        // Local changes are drawn right after the key; only others' changes need a wake-up.
        let tokens = Self.observedKeys.map { key in
            app.store.observe(key) { change in
                if change.origin != .local { waker.wake() }
            }
        }
        defer { tokens.forEach { $0.cancel() } }

        try terminal.enterRawMode()
        defer {
            screen.leave()
            terminal.restore()
        }
        try screen.enter()

        var state = InteractiveSidebar(app: app)
        var reader = KeyReader()
        let renderer = SidebarRenderer(style: screen.style, storePath: storePath)
        var size = terminal.size
        while true {
            let model = app.makeModel()
            let shown = (sidebar: model.sidebar(customization: app.customization), selection: model.selection)
            try screen.draw(renderer.frame(for: &state, model: model, sidebar: shown.sidebar, size: size), size: size)

            let events = try poller.wait()
            if let signal = events.termination { return 128 + signal }
            if events.resized { size = terminal.size }
            if events.woken {
                let now = (sidebar: app.sidebar, selection: app.selection)
                let selection = (shown.selection, now.selection)
                if let change = SidebarDifference.describe(from: shown.sidebar, to: now.sidebar, selection: selection) {
                    state.noteExternalChange(change)
                }
            }
            for key in reader.feed(events.input) {
                // Too small to draw the sidebar: only quitting makes sense.
                if !size.isAtLeast(SidebarRenderer.minimumSize), key != .character("q"), key != .control("c") { continue }
                if case .quit(let status) = state.handle(key) { return status }
            }
            if events.inputEnded { return 128 + EventPoller.hangUpSignal }  // the terminal went away
        }
    }
}
