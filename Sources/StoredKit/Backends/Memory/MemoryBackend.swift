import Synchronization

/// A backend that keeps everything in memory: for tests, previews and throwaway stores.
///
/// Two backends made with ``init(sharing:)`` share their contents the way two processes
/// share a file: each store sees the other's commits as external changes.
///
/// ```swift
/// let first = MemoryBackend()
/// let a = try PreferenceStore(first), b = try PreferenceStore(MemoryBackend(sharing: first))
/// a.set(1, forKey: "n")
/// try a.flush()   // b's observers now see n = 1 with origin .external
/// ```
public final class MemoryBackend: Backend {
    /// The contents, shared by every backend made with `init(sharing:)`.
    private final class Storage: Sendable {
        struct State {
            var snapshot: BackendSnapshot
            /// Counts commits, so each backend can tell whether another one committed since it last
            /// looked: at its own commit, and when it starts watching.
            var revision = 0
            var watchers: [ObjectIdentifier: @Sendable () -> Void] = [:]
        }
        let state: Mutex<State>
        init(_ snapshot: BackendSnapshot) { state = Mutex(State(snapshot: snapshot)) }
    }

    private let storage: Storage
    /// The revision of the contents this backend last read or wrote; `nil` before the first.
    private let seenRevision = Mutex<Int?>(nil)

    /// Always `"memory"`.
    ///
    /// ```swift
    /// MemoryBackend().location  //=> "memory"
    /// ```
    public let location = "memory"

    /// Creates an in-memory backend, empty or holding `values`.
    ///
    /// ```swift
    /// let backend = MemoryBackend(values: ["volume": .double(0.5)])
    /// ```
    public init(values: [String: StoredValue] = [:], schemaVersion: Int = 0) {
        storage = Storage(BackendSnapshot(values: values, schemaVersion: schemaVersion))
    }

    /// Creates a backend over the same contents as `other`, like a second process on one file.
    ///
    /// ```swift
    /// let second = MemoryBackend(sharing: first)
    /// ```
    public init(sharing other: MemoryBackend) {
        storage = other.storage
    }

    /// The current contents.
    ///
    /// ```swift
    /// try backend.load().values  //=> ["volume": 0.5]
    /// ```
    public func load() throws -> BackendSnapshot {
        storage.state.withLock { state in
            seenRevision.withLock { $0 = state.revision }
            return state.snapshot
        }
    }

    /// Applies the batch and tells the other backends sharing these contents. Returns the whole
    /// contents when another backend committed since this one last read or wrote them.
    ///
    /// ```swift
    /// _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))
    /// ```
    public func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        let outcome = try exclusively { _, sawForeignCommit in (changes, sawForeignCommit) }
        return outcome.result ? outcome.after : nil
    }

    /// Runs `body` on the current contents and applies its changes, all under one lock.
    ///
    /// ```swift
    /// try backend.withExclusiveAccess { snapshot in (BackendChanges(values: ["n": .int(1)]), ()) }
    /// ```
    public func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        try exclusively { snapshot, _ in try body(snapshot) }.result
    }

    /// Applies what `body` returns under the contents' lock and tells the other backends. The
    /// body learns whether another backend committed since this one last looked; the contents
    /// after the commit come back with its result.
    private func exclusively<R>(
        _ body: (BackendSnapshot, Bool) throws -> (BackendChanges, R)
    ) throws -> (result: R, after: BackendSnapshot) {
        let me = ObjectIdentifier(self)
        let (result, after, others) = try storage.state.withLock {
            state -> (R, BackendSnapshot, [@Sendable () -> Void]) in
            let sawForeignCommit = seenRevision.withLock { $0 } != state.revision
            let (changes, result) = try body(state.snapshot, sawForeignCommit)
            if !changes.isEmpty {
                state.snapshot.apply(changes)
                state.revision += 1
            }
            seenRevision.withLock { $0 = state.revision }
            return (result, state.snapshot, state.watchers.filter { $0.key != me }.map(\.value))
        }
        for watcher in others { watcher() }
        return (result, after)
    }

    /// Calls `onChange` after every commit made through another backend sharing these contents,
    /// and at once if one was made since this backend last loaded.
    ///
    /// ```swift
    /// try backend.startWatching { print("changed elsewhere") }
    /// ```
    public func startWatching(_ onChange: @escaping @Sendable () -> Void) throws {
        let missedCommit = storage.state.withLock { state in
            state.watchers[ObjectIdentifier(self)] = onChange
            return seenRevision.withLock { $0 }.map { $0 != state.revision } ?? false
        }
        if missedCommit { onChange() }
    }

    /// Stops the calls started by ``startWatching(_:)``.
    ///
    /// ```swift
    /// backend.stopWatching()
    /// ```
    public func stopWatching() {
        storage.state.withLock { $0.watchers[ObjectIdentifier(self)] = nil }
    }

    deinit {
        storage.state.withLock { state in state.watchers[ObjectIdentifier(self)] = nil }
    }
}
