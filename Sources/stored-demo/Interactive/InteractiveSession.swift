import Observation
import StoredKit
import Synchronization
import TabKit

/// The full-screen sidebar: draws, reads keys, follows other processes' changes, and ends on `q`,
/// Ctrl-C, SIGINT, SIGTERM, SIGHUP, a closed terminal or an error, restoring the terminal's modes
/// and screen on each of them.
///
/// One loop does everything, woken by keys, by the store's observers (another process wrote, or
/// the administrator edited the forced file), by the store's diagnostics (a key became locked or
/// unlocked, the forced file became unreadable, a change made offline lost or was refused), by
/// the replica's sync state (shared sidebars) and by signals, so the screen is only ever drawn from
/// one thread.
///
/// ```swift
/// let status = try InteractiveSession(app: SmartHome(store: store), location: ("store", url.path)).run()  //=> 0 after q
/// ```
struct InteractiveSession {
    let app: SmartHome
    /// What the title line says the sidebar is kept in (``SidebarRenderer/location``).
    let location: (label: String, path: String)
    /// Whether the store is a replica of a shared namespace: the screen then shows its sync state.
    var isShared = false

    /// Runs until the person quits; returns the exit status (0 for `q`, 128 + the signal number
    /// for a signal, 130 for Ctrl-C, 129 when the terminal closes, as a shell would report them).
    func run() throws -> Int32 {
        let terminal = try RawTerminal(fileDescriptor: RawTerminal.standardInput)
        let screen = TerminalScreen(fileDescriptor: TerminalScreen.standardOutput, style: .fromEnvironment())
        let poller = try EventPoller(input: terminal.fileDescriptor)
        let waker = poller.waker
        // The sidebar, rooms and selection redraw the screen when another process changes them:
        // local changes are drawn right after the key; only others' changes need a wake-up. Typed
        // observers, which also hear the user's value change under a forced value that does not decode.
        let wake: @Sendable (Change.Origin) -> Void = { origin in
            if origin != .local { waker.wake() }
        }
        let tokens = [
            app.store.observe(StoredKeys.sidebar) { wake($0.origin) }, app.store.observe(StoredKeys.rooms) { wake($0.origin) },
            app.store.observe(StoredKeys.selection) { wake($0.origin) },
        ]
        defer { tokens.forEach { $0.cancel() } }
        // A key that becomes forced with the value it had changes no value, so no observer hears
        // it; the diagnostics do. Subscribed here, before the first frame, so none is missed.
        let notices = LatestNotice()
        let syncNotices = LatestNotice()
        let connectionNotices = LatestNotice()
        let diagnostics = app.store.diagnostics
        let listener = Task {
            for await event in diagnostics {
                switch event {
                case .becameForced, .becameUnforced: waker.wake()
                case .layerFileUnreadable(let path, let reason, _):
                    notices.add("'\(DemoCommand.displayPath(of: path))' cannot be read, so its last good values stay: \(reason)")
                    waker.wake()
                // What the syncer found when it sent a change made here: the screen already shows
                // the value the key holds now (it arrives as another process's change); these say why.
                case .lostToLaterWrite(let key, _):
                    syncNotices.add("Your change to \(SmartHome.syncedThing(key)) lost to a later one made elsewhere.")
                    waker.wake()
                case .refusedByServer(let key, _, let reason):
                    syncNotices.add("The server refused your change to \(SmartHome.syncedThing(key)): \(reason)")
                    waker.wake()
                case .stampClamped(let key, _, _):
                    syncNotices.add(
                        "This clock is ahead of the server's: your change to \(SmartHome.syncedThing(key)) got its time.")
                    waker.wake()
                // Once per outage.
                case .connectionLost(_, let reason):
                    connectionNotices.add(Self.outOfReach(reason))
                    waker.wake()
                default: break
                }
            }
        }
        defer { listener.cancel() }

        try terminal.enterRawMode()
        defer {
            screen.leave()
            terminal.restore()
        }
        try screen.enter()

        var state = InteractiveSidebar(app: app)
        for case .layerFileUnreadable(let path, let reason, _) in app.store.recentEvents {
            state.noteAdministratorChange(
                "'\(DemoCommand.displayPath(of: path))' cannot be read, so it locks nothing: \(reason)", problem: true)
        }
        // The first attempt to reach the server can fail before the listener above subscribed.
        let connection = app.store.recentEvents.last { event in
            switch event {
            case .connectionLost, .connectionRestored: true
            default: false
            }
        }
        if case .connectionLost(_, let reason) = connection { state.noteSyncOutcome(Self.outOfReach(reason)) }
        var reader = KeyReader()
        let renderer = SidebarRenderer(style: screen.style, location: location, isShared: isShared)
        let syncState = SyncStateWatch(store: app.store, waker: waker)
        var size = terminal.size
        // What the status line last accounted for: others' changes are told against it. Not the
        // frame last drawn: a frame drawn for another reason (the sync state changed, a resize)
        // between another process's write and its wake-up would show the write and swallow its news.
        var told = DemoSnapshot(app: app, model: app.makeModel())
        while true {
            let model = app.makeModel()
            let shown = DemoSnapshot(app: app, model: model)
            let frame = renderer.frame(
                for: &state, model: model, sidebar: shown.sidebar, locks: shown.locks, sync: syncState.current(), size: size)
            try screen.draw(frame, size: size)

            let events = try poller.wait()
            if let signal = events.termination { return 128 + signal }
            if events.resized { size = terminal.size }
            if events.woken {
                let now = DemoSnapshot(app: app, model: app.makeModel())
                let selection = (told.selection, now.selection)
                let change = SidebarDifference.describe(from: told.sidebar, to: now.sidebar, selection: selection)
                // A file that cannot be read changes nothing (its last good values stay), so a
                // change of the locks came from a later, good read: it is what the screen shows now.
                let problem = notices.take()
                let syncNotice = syncNotices.take()
                let connectionNotice = connectionNotices.take()
                if now.locks != told.locks {
                    let locks = now.locks.summary ?? "nothing is locked any more."
                    state.noteAdministratorChange(locks + (change.map { " " + $0 } ?? ""))
                } else if let problem {
                    state.noteAdministratorChange(problem, problem: true)
                } else if let syncNotice {
                    state.noteSyncOutcome(syncNotice)
                } else if let connectionNotice, change == nil {
                    state.noteSyncOutcome(connectionNotice)
                } else if let change {
                    // A locked value that changed was changed in the forced file: nobody else can.
                    if now.changedLockedValue(since: told) {
                        state.noteAdministratorChange(change)
                    } else {
                        state.noteExternalChange(change)
                    }
                }
                told = now
            }
            let keys = reader.feed(events.input)
            for key in keys {
                // Too small to draw the sidebar: only quitting makes sense.
                if !size.isAtLeast(SidebarRenderer.minimumSize), key != .character("q"), key != .control("c") { continue }
                if case .quit(let status) = state.handle(key) { return status }
            }
            // The person's own changes are not news.
            if !keys.isEmpty { told = DemoSnapshot(app: app, model: app.makeModel()) }
            if events.inputEnded { return 128 + EventPoller.hangUpSignal }  // the terminal went away
        }
    }
}

extension InteractiveSession {
    /// The status line's words for a server out of reach: why the sync line says offline (a wrong
    /// URL or password shows here).
    static func outOfReach(_ reason: String) -> String {
        "The server is out of reach; changes wait in the replica: \(reason)"
    }
}

/// What the screen showed, to tell what changed when the loop is woken and who changed it.
struct DemoSnapshot {
    let customization: TabViewCustomization
    let rooms: [String]
    let sidebar: ResolvedSidebar<Int>
    let selection: Int
    let locks: DemoLocks

    init(app: SmartHome, model: TabViewModel<Int>) {
        customization = app.customization
        rooms = app.roomNames
        sidebar = model.sidebar(customization: customization)
        selection = model.selection
        locks = app.locks
    }

    /// Whether a key that is locked in both snapshots has another value now.
    func changedLockedValue(since old: DemoSnapshot) -> Bool {
        (locks.sidebar != nil && customization != old.customization) || (locks.rooms != nil && rooms != old.rooms)
            || (locks.selection != nil && selection != old.selection)
    }
}

/// What the diagnostics listener tells the loop (about the forced file, or a change the server
/// did not take), handed over under a lock.
final class LatestNotice: Sendable {
    private let pending = Mutex<String?>(nil)

    func add(_ notice: String) { pending.withLock { $0 = notice } }

    /// The latest notice, once.
    func take() -> String? {
        pending.withLock { notice in
            defer { notice = nil }
            return notice
        }
    }
}

/// The replica's sync state for the loop: read when a frame is drawn, and a wake-up of the loop
/// when it changes (``PreferenceStore/syncState`` is tracked by Observation; one tracker at a
/// time, armed again on the first frame after it fired, so trackers never pile up between changes).
final class SyncStateWatch: Sendable {
    let store: PreferenceStore
    let waker: EventPoller.Waker
    private let armed = Mutex(false)

    init(store: PreferenceStore, waker: EventPoller.Waker) {
        self.store = store
        self.waker = waker
    }

    /// The state now; nil for a store that keeps no replica.
    func current() -> SyncState? {
        let arm = armed.withLock { armed in
            defer { armed = true }
            return !armed
        }
        guard arm else { return store.syncState }
        return withObservationTracking {
            store.syncState
        } onChange: { [self] in
            armed.withLock { $0 = false }
            waker.wake()
        }
    }
}
