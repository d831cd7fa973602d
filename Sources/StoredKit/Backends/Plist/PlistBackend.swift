import Foundation
import Synchronization

/// A store kept in one property-list file, in the format and place UserDefaults uses.
///
/// The file is a dictionary of your keys, XML by default or binary on request; both are read
/// whatever the configured format. The schema version lives in the same file under the
/// reserved key `"StoredKit.metadata"`, written only once a migration ran, so a file without
/// migrations is exactly what Foundation's UserDefaults writes and reads.
///
/// Several processes may share a file. Each commit takes an exclusive `flock` on
/// `<file>.lock`, re-reads the file if someone else replaced it, applies only its own
/// changed keys on top and replaces the file atomically (temporary file, fsync, rename,
/// directory fsync). Every commit is durable whatever ``BackendChanges/durability`` asks:
/// the engine decides *when* to commit, and a commit always reaches the disk.
///
/// A file that cannot be parsed is moved to `<file>.corrupt-<timestamp>` and reported in
/// ``BackendSnapshot/events`` (``CorruptionPolicy/quarantine``), or makes ``load()`` throw
/// (``CorruptionPolicy/fail``); it is never overwritten. A zero-byte file reads as empty.
/// Creating the backend touches nothing; the file is first read by ``load()`` and a missing
/// directory is created (mode 0700) by the first write. New files are created with mode 0600.
///
/// ```swift
/// let backend = PlistBackend(at: URL(fileURLWithPath: "/tmp/app.plist"))
/// _ = try backend.commit(BackendChanges(values: ["volume": .double(0.5)]))
/// try backend.load().values  //=> ["volume": 0.5]
/// ```
public final class PlistBackend: Backend {
    /// The file's path.
    ///
    /// ```swift
    /// PlistBackend(at: URL(fileURLWithPath: "/tmp/app.plist")).path  //=> "/tmp/app.plist"
    /// ```
    public let path: String
    /// The format new writes use; reading accepts both.
    ///
    /// ```swift
    /// PlistBackend(at: url, format: .binary).format  //=> .binary
    /// ```
    public let format: PlistFormat
    /// What ``load()`` does with a file that cannot be parsed.
    ///
    /// ```swift
    /// PlistBackend(at: url).corruptionPolicy  //=> .quarantine
    /// ```
    public let corruptionPolicy: CorruptionPolicy
    /// The file's path, used in messages.
    ///
    /// ```swift
    /// PlistBackend(at: URL(fileURLWithPath: "/tmp/app.plist")).location  //=> "/tmp/app.plist"
    /// ```
    public var location: String { path }

    let lock: FileLock
    let state = Mutex(State())

    /// A parsed version of the file and the identity of the bytes it came from (`nil`: no file).
    struct LoadedFile: Sendable {
        var document: PlistDocument
        var identity: FileIdentity?
    }

    struct State {
        var isOpen = false
        /// What this instance last read or wrote; a commit uses it instead of re-reading while
        /// the file's identity is unchanged.
        var loaded: LoadedFile?
        /// Writes between their rename and updating ``loaded``; watch callbacks skip them so
        /// that our own writes do not look like someone else's.
        var writesInProgress = 0
        var watch: WatchState?
    }

    /// Creates a backend for the file at `url`. Nothing is read or created until it is used.
    ///
    /// ```swift
    /// let backend = PlistBackend(at: URL(fileURLWithPath: "/tmp/app.plist"), format: .binary)
    /// ```
    public init(at url: URL, format: PlistFormat = .xml, corruption: CorruptionPolicy = .quarantine) {
        path = url.path
        self.format = format
        corruptionPolicy = corruption
        lock = FileLock(guarding: url.path)
    }

    deinit {
        stopWatching()
    }

    var directory: String { SystemCall.directory(of: path) }
    var fileName: String { SystemCall.fileName(of: path) }

    /// Reads the file; a missing file is an empty snapshot.
    ///
    /// ```swift
    /// try PlistBackend(at: URL(fileURLWithPath: "/tmp/none.plist")).load().values  //=> [:]
    /// ```
    public func load() throws -> BackendSnapshot {
        openIfNeeded()
        let (file, events) = try readFile(holdingLock: false)
        state.withLock { $0.loaded = file }
        return file.document.snapshot(events: events)
    }

    /// Applies `changes` to the file under the cross-process lock; returns the whole data when
    /// another process had replaced the file since this instance last read or wrote it.
    ///
    /// ```swift
    /// try backend.commit(BackendChanges(values: ["a": .int(1), "old": nil]))  //=> nil
    /// ```
    public func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        guard !changes.isEmpty else { return nil }
        try validate(changes)
        openIfNeeded()
        try FileSystem.createDirectories(directory)
        return try lock.withLock { try applyHoldingLock(changes, to: try currentFileHoldingLock()) }
    }

    /// How often a commit starts again on a file replaced while it was being written.
    static let replacementAttempts = 5

    /// Runs `body` on the file's current contents while holding the cross-process lock, and
    /// writes the changes it returns before releasing it. `body` must not call this backend's
    /// `commit` or `withExclusiveAccess`: the lock is not reentrant, so that would wait forever.
    ///
    /// ```swift
    /// let count = try backend.withExclusiveAccess { snapshot in
    ///     guard case .int(let count)? = snapshot.values["count"] else { return (BackendChanges(values: ["count": .int(1)]), 1) }
    ///     return (BackendChanges(values: ["count": .int(count + 1)]), count + 1)
    /// }
    /// ```
    public func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        openIfNeeded()
        try FileSystem.createDirectories(directory)
        return try lock.withLock {
            let current = try currentFileHoldingLock()
            let (changes, result) = try body(current.file.document.snapshot(events: current.events))
            guard !changes.isEmpty else { return result }
            try validate(changes)
            _ = try applyHoldingLock(changes, to: current)
            return result
        }
    }

    /// Removes temporary files a crashed writer left, once, at the first use.
    private func openIfNeeded() {
        let isFirstUse = state.withLock { state in
            defer { state.isOpen = true }
            return !state.isOpen
        }
        guard isFirstUse, !AtomicFile.leftoverTemporaryFiles(of: path).isEmpty else { return }
        // Only under the lock, which every live writer holds while its temporary file exists.
        // Without the lock (a read-only directory) the files cannot be removed anyway.
        _ = try? lock.withLock { AtomicFile.removeLeftoverTemporaryFiles(of: path) }
    }

    /// The file as it is now, from memory when its identity shows nobody replaced it.
    /// Must be called while holding ``lock``.
    private func currentFileHoldingLock() throws -> (file: LoadedFile, events: [StoreEvent], changedElsewhere: Bool) {
        let identity = try FileIdentity.of(path: path)
        if let loaded = state.withLock({ $0.loaded }), loaded.identity == identity {
            return (loaded, [], false)
        }
        let (file, events) = try readFile(holdingLock: true)
        return (file, events, true)
    }

    /// Applies `changes` to `read` (the file as read under ``lock``) and writes the result. A file
    /// moved over this one while it was being written (a user's `mv backup`, which takes no lock) is
    /// not overwritten: the changes are applied to it instead. Returns the written data when it
    /// differs from what this instance last knew, as ``commit(_:)`` does.
    private func applyHoldingLock(
        _ changes: BackendChanges, to read: (file: LoadedFile, events: [StoreEvent], changedElsewhere: Bool)
    ) throws -> BackendSnapshot? {
        var read = read
        var replaced = false
        for _ in 1...Self.replacementAttempts {
            var document = read.file.document
            document.apply(changes)
            if try writeIfChanged(document, current: read.file) {
                return read.changedElsewhere || replaced ? document.snapshot(events: read.events) : nil
            }
            replaced = true
            read = try currentFileHoldingLock()
        }
        throw StoreError.io(path: path, operation: "write (it was replaced during every attempt)", errno: EAGAIN)
    }

    /// Writes `document` unless it equals `current`; returns false, writing nothing, when the file
    /// at the path is no longer `current` by the time the new bytes are ready.
    private func writeIfChanged(_ document: PlistDocument, current: LoadedFile) throws -> Bool {
        // Rewriting identical contents would cost two fsyncs and wake every watcher for nothing.
        if document == current.document, current.identity != nil || document == PlistDocument() {
            return true
        }
        let data = try document.encoded(as: format)
        state.withLock { $0.writesInProgress += 1 }
        defer { state.withLock { $0.writesInProgress -= 1 } }
        let written = try AtomicFile.write(data, to: path) { try FileIdentity.of(path: path) == current.identity }
        guard let identity = written else { return false }
        state.withLock { $0.loaded = LoadedFile(document: document, identity: identity) }
        return true
    }
}
