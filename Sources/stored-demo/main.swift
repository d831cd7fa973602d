import Dispatch
import Foundation
import StoredKit
import Synchronization
import TabKit

// stored-demo: the showcase. A SwiftUI-style sidebar whose customization persists with @Stored
// in an embedded SQLite store (or, with --shared, a replica of a PostgreSQL namespace): customized
// interactively in a terminal, changed from the command line, and followed live by every open window.

/// Writes a line to standard error. Its text may quote a file the user does not control (the
/// administrator's forced file, a corrupt store): control characters but line breaks, and
/// bidirectional overrides, print as `?`, as on the demo's screens, so they cannot drive the terminal.
func standardError(_ text: String) {
    FileHandle.standardError.write(Data((TerminalScreen.printableLines(text) + "\n").utf8))
}

/// Writes a line to standard output at once: `print` is block-buffered in a pipe, so a script
/// reading `watch` would see nothing until the buffer filled.
func standardOutput(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

do {
    let (command, storeURL, forcedURL, shared) = try DemoCommand.parse(Array(CommandLine.arguments.dropFirst()))
    let interactive =
        command == .show && RawTerminal.standardStreamsAreInteractive
        && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    // The interactive screen takes its signals itself (it restores the terminal, then exits through
    // the same sequence); every other command ends on SIGINT and SIGTERM through the exit sequence
    // (130, 143). Before the store opens, so no thread starts with the signals unblocked.
    if !interactive { TerminationSignals.endThroughExitSequence() }
    if case .measureLatency(let count) = command {
        print(try LatencyMeasurement(count: count).run())
        exit(0)
    }
    // Opened before the screen is taken over: a store that cannot be opened, or is corrupt
    // (refused, not moved aside, so the person sees why), leaves the terminal as it was.
    // The administrator's forced file (the standard path unless --forced names one) is a layer
    // above the user's values: the keys it holds are locked, and its edits reach every window.
    // A shared sidebar opens from its replica, never waiting for the server.
    let store =
        try shared?.open(forcedFile: forcedURL)
        ?? SmartHome.openStore(at: storeURL, forcedFile: forcedURL, corruption: interactive ? .fail : .quarantine)
    let app = SmartHome(store: store)
    if !interactive {  // the interactive screen says it on its status line
        for case .layerFileUnreadable(let path, let reason, _) in store.recentEvents {
            standardError("stored-demo: '\(DemoCommand.displayPath(of: path))' cannot be read, so it locks nothing: \(reason)")
        }
    }
    if interactive {
        let location = shared?.location ?? ("store", DemoCommand.displayPath(of: storeURL))
        let status = try InteractiveSession(app: app, location: location, isShared: shared != nil).run()
        try store.flush()
        // Online, what the last keys queued goes now rather than at the next start; offline the
        // replica keeps it, and waiting would only delay the quit.
        if store.syncState?.isConnected == true { _ = SharedStore.synchronize(store, timeout: SharedStore.quitSyncTimeout) }
        exit(status)
    }
    let sidebar = app.sidebar

    switch command {
    case .show, .measureLatency:
        break
    case .hide(let id), .reveal(let id):
        guard let tab = sidebar.tab(id) else { throw DemoError.refused("No tab '\(id)'. Use an ID shown in parentheses.") }
        guard tab.canChangeVisibility else { throw DemoError.refused("'\(id)' cannot be hidden: its customization is disabled.") }
        try app.setVisibility(of: id, hidden: command == .hide(id))
    case .move(let id, let section, let index):
        try app.update(.sidebar) { customization in
            try customization.moveTab(
                id, toSection: section, at: index, in: app.makeModel().sidebar(customization: customization))
        }
    case .resetOrder:
        try app.resetSectionOrder()
    case .resetVisibility:
        try app.resetVisibility()
    case .select(let value):
        guard app.makeModel().tabs.contains(where: { $0.value == value }) else {
            throw DemoError.refused("No tab has the value \(value).")
        }
        try app.select(value)
    case .addRoom(let name):
        try app.addRoom(name)
    case .removeRoom(let name):
        try app.removeRoom(name)
    case .watch(let count):
        let done = DispatchSemaphore(value: 0)
        let remaining = Mutex(count ?? Int.max)
        // Rooms are part of the sidebar too: a room added elsewhere re-renders it, and so does an
        // administrator's edit of the forced file. Observing starts before the first render, so a
        // change made once it is read is never missed. Typed observers: a forced value that does
        // not decode leaves the render on the user's value, whose changes a raw observer never hears.
        let rendered: @Sendable (Change.Origin) -> Void = { origin in
            standardOutput("\n— changed (\(origin)) —\n" + app.render())
            let left = remaining.withLock { remaining in
                remaining -= 1
                return remaining
            }
            if left <= 0 { done.signal() }
        }
        let tokens = [
            store.observe(StoredKeys.sidebar) { rendered($0.origin) }, store.observe(StoredKeys.rooms) { rendered($0.origin) },
        ]
        standardOutput(app.render())
        done.wait()
        tokens.forEach { $0.cancel() }
        exit(0)
    }
    try store.flush()
    if let shared {
        // A command run from a script ends at once: the change is sent (and the server's read)
        // before it prints, or it waits in the replica for the next run.
        if let reason = SharedStore.synchronize(store, timeout: SharedStore.commandSyncTimeout) {
            let state = store.syncState.map { "\($0)" } ?? "not synced"
            standardError(
                "stored-demo: \(state); the change is kept in '\(DemoCommand.displayPath(of: shared.replica))' "
                    + "and sent the next time stored-demo runs on it. \(reason)")
        }
    }
    print(app.render())
    if shared == nil { print("\nThe raw stored value: swift run stored read \(storeURL.path) sidebar") }
} catch DemoError.help {
    print(DemoCommand.usage)
} catch DemoError.usage(let message) {
    standardError("stored-demo: \(message)\n\n\(DemoCommand.usage)")
    exit(2)
} catch let error as TabCustomizationError {
    standardError("stored-demo: \(error)")
    exit(3)
} catch DemoError.refused(let message) {
    standardError("stored-demo: \(message)")
    exit(3)
} catch {
    standardError("stored-demo: \(error)")
    exit(1)
}
