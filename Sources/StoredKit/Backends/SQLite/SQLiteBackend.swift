import Dispatch
import Foundation
import Synchronization

/// Preferences in one SQLite file (system `libsqlite3`, 3.37 or newer), shared safely between
/// processes: WAL journal, `BEGIN IMMEDIATE` for every write, a batch per transaction, and
/// `PRAGMA data_version` (woken by inotify, confirmed by a one-second poll) to notice other writers.
///
/// The file is readable with the stock shell; see <doc:ChoosingAStore#The-SQLite-layout>
/// for the layout:
///
/// ```swift
/// let store = try PreferenceStore(.sqlite(at: URL(filePath: "/home/me/.config/app/prefs.sqlite")))
/// // $ sqlite3 prefs.sqlite "select key, type, value from preferences"
/// //=> volume|double|0.8
/// ```
///
/// Nothing touches the file until the first ``load()``, ``commit(_:)`` or
/// ``withExclusiveAccess(_:)``; a file that is not a database or is damaged is handled as
/// `corruption` says.
public final class SQLiteBackend: Backend {
    /// The database file path.
    ///
    /// ```swift
    /// SQLiteBackend.sqlite(at: URL(filePath: "/tmp/p.sqlite")).path  //=> "/tmp/p.sqlite"
    /// ```
    public let path: String
    let corruption: CorruptionPolicy
    let state = Mutex(State())

    /// Everything mutable, guarded by `state`. Unchecked: the connection and the timer are not
    /// thread-safe themselves, and are only ever touched inside `state.withLock`. (Checked, every
    /// closure capturing the locked state beside a caller's closure, like a transaction running the
    /// body of ``withExclusiveAccess(_:)``, would count as sending the state away.)
    struct State: @unchecked Sendable {
        var connection: SQLiteConnection?
        /// The data as of `loadedDataVersion` and `lastSequence`, without events.
        var cached: BackendSnapshot?
        var loadedDataVersion: Int64 = 0
        var lastSequence: Int64 = 0
        /// The data version the watcher last reported, so each external commit is signalled once.
        var signalledDataVersion: Int64?
        /// Events (a quarantine, rows that did not decode) waiting to be returned with the next snapshot.
        var pendingEvents: [StoreEvent] = []
        var onChange: (@Sendable () -> Void)?
        var watcher: DirectoryWatcher?
        var pollTimer: (any DispatchSourceTimer)?
        /// The database file the connection has open (device and inode), to notice it deleted or
        /// replaced by a rename; `nil` when that could not be told, which counts as replaced.
        var openedFile: FileIdentity?
        /// The file found at the path when the watcher last reported a replacement (`nil` inside:
        /// none), so each replacement is signalled once.
        var signalledFile: FileIdentity??
        /// Keys of rows that reads do not show: another spelling (up to Unicode normalisation) of a
        /// shown key. A removal removes them too. Usually empty.
        var hiddenSpellings: [String] = []
    }

    /// Creates a backend for the file at `url`; see ``Backend/sqlite(at:corruption:)``.
    ///
    /// ```swift
    /// let backend = SQLiteBackend(at: URL(filePath: "/tmp/p.sqlite"), corruption: .fail)
    /// ```
    public init(at url: URL, corruption: CorruptionPolicy = .quarantine) {
        self.path = url.standardizedFileURL.path
        self.corruption = corruption
    }

    deinit {
        stopWatching()
    }

    /// The file path, for messages.
    ///
    /// ```swift
    /// SQLiteBackend.sqlite(at: URL(filePath: "/tmp/p.sqlite")).location  //=> "/tmp/p.sqlite"
    /// ```
    public var location: String { path }

    // MARK: Backend

    /// Reads everything, reusing the cached snapshot when no other connection committed since.
    /// A file deleted or replaced since the last call is noticed here: the file now at the path
    /// (a new one when there is none) is opened and read in full.
    ///
    /// ```swift
    /// try SQLiteBackend.sqlite(at: url).load().values  //=> ["volume": .double(0.8)]
    /// ```
    public func load() throws -> BackendSnapshot {
        try state.withLock { state in
            _ = try closeIfReplaced(&state)
            // Opening reads everything; only an open connection needs to look for news.
            guard let connection = state.connection else {
                _ = try open(&state)
                return takeSnapshot(&state)
            }
            _ = try connection.transaction { try refresh(&state, connection) }
            return takeSnapshot(&state)
        }
    }

    /// Writes the batch in one `BEGIN IMMEDIATE` transaction, synced (`synchronous=FULL`) when
    /// `changes.durability` is `.immediate`. Returns the fresh snapshot when another connection
    /// had committed since the last load, or when the file was deleted or replaced: the batch then
    /// goes into the file that has the store's name now, never only into the one that lost it.
    ///
    /// ```swift
    /// try backend.commit(BackendChanges(values: ["volume": .double(0.8), "old": nil], durability: .immediate))
    /// //=> nil
    /// ```
    public func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        try state.withLock { state -> BackendSnapshot? in
            try commitToFileAtPath(changes, &state) ? takeSnapshot(&state) : nil
        }
    }

    /// Runs `body` on the freshest data inside one `BEGIN IMMEDIATE` transaction and commits its
    /// changes before releasing the write lock; a throw rolls everything back. `body` must not
    /// call this backend. A file replaced while `body` ran gets its changes too.
    ///
    /// ```swift
    /// let count = try backend.withExclusiveAccess { snapshot in
    ///     let next = (snapshot.values["count"].flatMap { if case .int(let n) = $0 { n } else { nil } } ?? 0) + 1
    ///     return (BackendChanges(values: ["count": .int(next)]), next)
    /// }
    /// ```
    public func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        // Mutex.withLock wants a `sending` result, which a caller's generic result cannot promise;
        // this one never leaves the calling task.
        var outcome: Result<R, any Error>?
        state.withLock { state in
            do {
                let changes: BackendChanges
                let value: R
                do {  // the connection must be released before another one opens
                    _ = try closeIfReplaced(&state)
                    let connection = try open(&state)
                    let sequence: Int64
                    (changes, value, sequence) = try connection.transaction(.immediate) {
                        _ = try refresh(&state, connection)
                        var snapshot = state.cached ?? BackendSnapshot()
                        snapshot.events = []
                        let (changes, value) = try body(snapshot)
                        return (changes, value, try write(changes, &state, connection))
                    }
                    state.recordCommitted(changes, sequence: sequence)
                    // synchronous cannot change inside a transaction; sync the log by hand when the
                    // body asked for more durability than the connection was set to.
                    if changes.durability == .immediate && connection.synchronous != "FULL" {
                        try connection.syncWriteAheadLog()
                    }
                }
                if try closeIfReplaced(&state) { _ = try commitToFileAtPath(changes, &state) }
                outcome = .success(value)
            } catch {
                outcome = .failure(error)
            }
        }
        return try outcome!.get()  // trap-ok: withLock ran the closure synchronously, so outcome is set
    }

    /// Calls `onChange` when another connection commits: inotify on the directory wakes a check
    /// of `PRAGMA data_version`, and a one-second poll catches what inotify cannot see (other
    /// mounts, missed events). Our own commits never signal.
    ///
    /// ```swift
    /// try backend.startWatching { print("someone else wrote") }
    /// ```
    public func startWatching(_ onChange: @escaping @Sendable () -> Void) throws {
        stopWatching()
        let watcher = try makeWatcherIfDirectoryExists()
        try state.withLock { state in
            let connection = try open(&state)
            state.signalledDataVersion = state.cached != nil ? state.loadedDataVersion : try connection.dataVersion()
            state.signalledFile = nil
            state.onChange = onChange
            state.watcher = watcher
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "StoredKit.SQLiteBackend.poll"))
            timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(250))
            timer.setEventHandler { [weak self] in
                self?.attachWatcherIfNeeded()
                self?.checkForExternalChange()
            }
            timer.resume()
            state.pollTimer = timer
        }
    }

    /// Stops the calls started by ``startWatching(_:)``.
    ///
    /// ```swift
    /// backend.stopWatching()
    /// ```
    public func stopWatching() {
        state.withLock { state in
            state.onChange = nil
            state.watcher?.cancel()
            state.watcher = nil
            state.pollTimer?.cancel()
            state.pollTimer = nil
        }
    }

    /// The inotify watch of the file's directory, or `nil` while there is no such directory.
    private func makeWatcherIfDirectoryExists() throws -> DirectoryWatcher? {
        let name = SystemCall.fileName(of: path)
        return try DirectoryWatcher.ifDirectoryExists(SystemCall.directory(of: path), fileNames: [name, name + "-wal"]) {
            [weak self] in self?.checkAfterWake()
        }
    }

    /// Watches the directory again once it was removed (or moved) and made anew, as the plist
    /// backend does: the poll sees the new file, but without this it would see every later
    /// commit of another process only at the next poll.
    private func attachWatcherIfNeeded() {
        guard let current = state.withLock({ $0.onChange == nil ? nil : .some($0.watcher) }), current?.isLost ?? true,
            let watcher = try? makeWatcherIfDirectoryExists()
        else { return }
        let attached = state.withLock { state -> Bool in
            guard state.onChange != nil, state.watcher === current else { return false }
            state.watcher = watcher
            return true
        }
        (attached ? current : watcher)?.cancel()
    }

    // MARK: Inspection

    /// Runs `PRAGMA quick_check`: an empty array when the file is sound, else what SQLite found.
    /// Never quarantines, creates or converts the file.
    ///
    /// ```swift
    /// try SQLiteBackend.sqlite(at: url).quickCheck()  //=> []
    /// ```
    public func quickCheck() throws -> [String] {
        try state.withLock { state in
            if let connection = state.connection { return try connection.quickCheck() }
            guard FileManager.default.fileExists(atPath: path) else {
                throw StoreError.io(path: path, operation: "check", errno: ENOENT)
            }
            try FileSystem.requireRegularFileIfPresent(path)
            do {
                return try SQLiteConnection(path: path, readOnly: true).quickCheck()
            } catch StoreError.sqlite(_, let code, let message) where SQLiteResultCode(code).isCorruption {
                return [message]
            }
        }
    }

    // MARK: Internals

    /// inotify sees the writer append its WAL frames, but the commit becomes visible (and
    /// `data_version` changes) only when the writer then updates the shared-memory index, which
    /// inotify cannot see. So a wake that finds nothing new looks again shortly after, instead of
    /// leaving the change to the next write or the 1 s poll.
    private func checkAfterWake() {
        guard !checkForExternalChange() else { return }
        let queue = DispatchQueue.global()
        for delay in [2, 10, 50] {
            queue.asyncAfter(deadline: .now() + .milliseconds(delay)) { [weak self] in
                _ = self?.checkForExternalChange()
            }
        }
    }

    /// Signals the engine if `data_version` moved since the last signal, or if the file was
    /// deleted or replaced (the engine's reload then opens the file now at the path); returns
    /// whether it did. A busy connection (a commit or load under way, which see other writers
    /// themselves) is left to the next check: waiting would hold up every watcher of the process,
    /// which share one thread, and keep this backend alive past its store's release.
    @discardableResult
    private func checkForExternalChange() -> Bool {
        let checked = state.withLockIfAvailable { state -> (@Sendable () -> Void)? in
            guard let onChange = state.onChange, let connection = state.connection else { return nil }
            let atPath = (try? FileIdentity.of(path: path)) ?? nil
            if !FileIdentity.sameFile(atPath, state.openedFile) {
                if let signalled = state.signalledFile, FileIdentity.sameFile(signalled, atPath) { return nil }
                state.signalledFile = .some(atPath)
                return onChange
            }
            // A failing check is reported by the load the engine runs next, so signal it.
            guard let version = try? connection.dataVersion() else { return onChange }
            guard version != state.signalledDataVersion else { return nil }
            state.signalledDataVersion = version
            return onChange
        }
        let callback = checked ?? nil  // nil: busy, or nothing new
        callback?()
        return callback != nil
    }

    private func takeSnapshot(_ state: inout State) -> BackendSnapshot {
        var snapshot = state.cached ?? BackendSnapshot()
        snapshot.events = state.pendingEvents
        state.pendingEvents = []
        return snapshot
    }
}

extension Backend where Self == SQLiteBackend {
    /// A backend that keeps preferences in the SQLite file at `url` (created with its directory when missing).
    ///
    /// ```swift
    /// let store = try PreferenceStore(.sqlite(at: URL(filePath: "/home/me/.config/app/prefs.sqlite")))
    /// ```
    public static func sqlite(at url: URL, corruption: CorruptionPolicy = .quarantine) -> SQLiteBackend {
        SQLiteBackend(at: url, corruption: corruption)
    }
}
