import Dispatch
import Foundation
import StoredKit
import Synchronization
import TabKit

// stored-demo: the showcase. A SwiftUI-style sidebar whose customization persists with @Stored
// in an embedded SQLite store, changed from the command line and watched live.

func standardError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

do {
    let (command, storeURL) = try DemoCommand.parse(Array(CommandLine.arguments.dropFirst()))
    let store = try PreferenceStore(.sqlite(at: storeURL))
    let app = SmartHome(store: store)
    let sidebar = app.makeModel().sidebar(customization: app.customization)

    switch command {
    case .show:
        break
    case .hide(let id), .reveal(let id):
        guard let tab = sidebar.tab(id) else { throw DemoError.refused("No tab '\(id)'. Use an ID shown in parentheses.") }
        guard tab.canChangeVisibility else { throw DemoError.refused("'\(id)' cannot be hidden: its customization is disabled.") }
        let hide = command == .hide(id)
        try store.update(.sidebar) { $0[tab: id].sidebarVisibility = hide ? .hidden : .visible }
    case .move(let id, let section, let index):
        try store.update(.sidebar) { customization in
            try customization.moveTab(id, toSection: section, at: index, in: sidebar)
        }
    case .resetOrder:
        try store.update(.sidebar) { $0.resetSectionOrder() }
    case .resetVisibility:
        try store.update(.sidebar) { $0.resetVisibility() }
    case .select(let value):
        guard app.makeModel().tabs.contains(where: { $0.value == value }) else {
            throw DemoError.refused("No tab has the value \(value).")
        }
        app.selection = value
    case .watch(let count):
        print(app.render())
        let done = DispatchSemaphore(value: 0)
        let remaining = Mutex(count ?? Int.max)
        let token = store.observe(.sidebar) { change in
            print("\n— changed (\(change.origin)) —\n" + app.render())
            let left = remaining.withLock { remaining in
                remaining -= 1
                return remaining
            }
            if left <= 0 { done.signal() }
        }
        done.wait()
        token.cancel()
        exit(0)
    }
    try store.flush()
    print(app.render())
    print("\nThe raw stored value: swift run stored read \(storeURL.path) sidebar")
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
