/// The storage under a ``PreferenceStore``: five small duties (and four optional ones), so anyone can plug in another store.
///
/// The engine keeps the whole snapshot in memory and calls the backend only to load it,
/// to commit batches of changes, to run an exclusive read-modify-write and to learn that
/// another process changed the data. A backend does not decode values or notify observers.
///
/// ```swift
/// final class DictionaryBackend: Backend, @unchecked Sendable {  // protect state with a Mutex in real code
///     var data = BackendSnapshot()
///     let location = "dictionary"
///     func load() throws -> BackendSnapshot { data }
///     func commit(_ changes: BackendChanges) throws -> BackendSnapshot? { data.apply(changes); return nil }
///     func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
///         let (changes, result) = try body(data)
///         data.apply(changes)
///         return result
///     }
///     func startWatching(_ onChange: @escaping @Sendable () -> Void) throws {}
///     func stopWatching() {}
/// }
/// let store = try PreferenceStore(DictionaryBackend())
/// ```
///
/// Prove a backend with the `StoredKitConformance` library: describe its data in a
/// `ConformanceSubject` and run every check in `BackendConformance.checks` from a Swift Testing
/// test (<doc:WritingABackend> shows the few lines it takes).
public protocol Backend: AnyObject, Sendable {
    /// Where the data lives, used in messages: a file path, or a name such as `"memory"`.
    var location: String { get }

    /// Reads everything. Called at open and whenever ``startWatching(_:)`` signalled a change.
    func load() throws -> BackendSnapshot

    /// Throws when this backend cannot hold `value` under `key` (a reserved key, a value its format
    /// has no form for), preferably ``StoreError/refused(key:reason:)``. The default accepts everything.
    ///
    /// The engine asks before it accepts a write (`set`, transactions, `update`, migrations), after
    /// checking ``StoredValue/maximumDepth`` itself: a refused `set` is reported as
    /// ``StoreEvent/encodingFailed(key:reason:)`` and changes nothing, a refused transaction or
    /// migration throws and commits nothing. So what a backend accepts here, it must commit and
    /// load again.
    ///
    /// ```swift
    /// func validate(_ value: StoredValue, forKey key: String) throws {
    ///     if key.isEmpty { throw StoreError.refused(key: key, reason: "empty keys are not supported") }
    /// }
    /// ```
    func validate(_ value: StoredValue, forKey key: String) throws

    /// Commits a batch atomically (all of it or none of it), durably as `changes.durability` asks.
    ///
    /// Returns the complete data after the commit when the backend noticed that another
    /// process had changed it since the last load (so the engine can merge those changes),
    /// or `nil` when its view was current.
    ///
    /// To refuse one key's value, throw ``StoreError/refused(key:reason:)`` naming it and commit
    /// nothing: the engine drops that write (its memory goes back to the committed value, observers
    /// are told, the refusal is reported) and commits the rest again. Any other error is taken as
    /// transient (disk full, a lock timeout): the whole batch stays pending and is retried.
    func commit(_ changes: BackendChanges) throws -> BackendSnapshot?

    /// Runs `body` on the freshest data while holding cross-process exclusion, commits the
    /// changes it returns atomically and only then releases the exclusion. If `body` throws,
    /// nothing is committed and the error is rethrown.
    func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R

    /// Starts calling `onChange` (on any thread, possibly spuriously) when the data may have
    /// been changed by someone else. The engine then calls ``load()`` and diffs. The engine
    /// calls this right after opening (observed or not) and ``stopWatching()`` when the store
    /// is released; a change made since the last ``load()`` must still be signalled.
    func startWatching(_ onChange: @escaping @Sendable () -> Void) throws

    /// Stops the calls started by ``startWatching(_:)`` (and by ``startSignalling(_:)``).
    func stopWatching()

    /// Starts passing `signal` what happens between calls, at any time and on any thread: events
    /// to report (``BackendSignal/event(_:)``: a connection lost or restored, a server's notice)
    /// and ``BackendSignal/retryPending`` when storage that was unreachable is back. The engine
    /// calls this at open, before ``startWatching(_:)``; ``stopWatching()`` ends it.
    ///
    /// A backend that cannot lose its storage (a local file, memory) has nothing to signal: the
    /// default does nothing.
    ///
    /// ```swift
    /// func startSignalling(_ signal: @escaping @Sendable (BackendSignal) -> Void) {
    ///     connection.onReconnect = { signal(.event(.connectionRestored(server: name))); signal(.retryPending) }
    /// }
    /// ```
    func startSignalling(_ signal: @escaping @Sendable (BackendSignal) -> Void)

    /// What this backend lacks to write, when it found at ``load()`` that it may only read (a
    /// PostgreSQL role granted `SELECT` alone); `nil` when it may write. The store asks after its
    /// first load: it then opens read-only and refuses every write at once with
    /// ``StoreError/writeNotPermitted(location:key:privilege:)`` naming this, and fails its open
    /// when migrations are pending. It asks again when a commit is refused for a privilege
    /// (PostgreSQL's SQLSTATE 42501): a backend that now says what it lacks makes the store
    /// read-only from then on. The default is `nil`: a backend that can always write.
    ///
    /// ```swift
    /// try reporting.load()
    /// reporting.missingWritePrivilege  //=> "INSERT on storedkit.namespaces, UPDATE on storedkit.namespaces, ..."
    /// ```
    var missingWritePrivilege: String? { get }

    /// The clock of a backend that merges concurrent writes from several replicas by when each
    /// was made (the last one made wins, not the last one committed); `nil` for one that simply
    /// keeps what it is given. The store stamps every `set` and removal with ``HybridLogicalClock/tick()``
    /// when it is made and hands the stamps over in ``BackendChanges/stamps``, so a write that
    /// waited offline for a week keeps the time it was made. The default is `nil`.
    ///
    /// ```swift
    /// let clock = HybridLogicalClock()
    /// var writeClock: HybridLogicalClock? { clock }
    /// ```
    var writeClock: HybridLogicalClock? { get }
}

extension Backend {
    /// Accepts every value; override it where the format cannot hold some (see the requirement).
    ///
    /// ```swift
    /// try MemoryBackend().validate(.int(1), forKey: "a")  // accepted
    /// ```
    public func validate(_ value: StoredValue, forKey key: String) throws {}

    /// Signals nothing: right for a backend that never loses its storage (see the requirement).
    ///
    /// ```swift
    /// MemoryBackend().startSignalling { _ in }  // never called
    /// ```
    public func startSignalling(_ signal: @escaping @Sendable (BackendSignal) -> Void) {}

    /// `nil`: a backend that can always write (see the requirement).
    ///
    /// ```swift
    /// MemoryBackend().missingWritePrivilege  //=> nil
    /// ```
    public var missingWritePrivilege: String? { nil }

    /// `nil`: a backend that keeps what it is given, in commit order (see the requirement).
    ///
    /// ```swift
    /// MemoryBackend().writeClock  //=> nil
    /// ```
    public var writeClock: HybridLogicalClock? { nil }
}

/// Everything a backend holds: the values and the schema version that migrations maintain.
///
/// ```swift
/// var snapshot = BackendSnapshot(values: ["a": .int(1)])
/// snapshot.apply(BackendChanges(values: ["a": nil], schemaVersion: 2))
/// snapshot.values.isEmpty  //=> true
/// ```
public struct BackendSnapshot: Sendable {
    /// Every stored key and its value (metadata excluded).
    ///
    /// ```swift
    /// snapshot.values["volume"]  //=> .double(0.5)
    /// ```
    public var values: [String: StoredValue]
    /// The version of the last migration committed to this data (0 when none ran).
    ///
    /// ```swift
    /// snapshot.schemaVersion  //=> 2
    /// ```
    public var schemaVersion: Int
    /// Things the store should report, such as a corrupt file that was moved aside while loading.
    ///
    /// ```swift
    /// snapshot.events  //=> [.quarantined(path: ..., movedTo: ..., reason: ...)]
    /// ```
    public var events: [StoreEvent]

    /// Creates a snapshot.
    ///
    /// ```swift
    /// BackendSnapshot(values: ["volume": .double(0.5)], schemaVersion: 1)
    /// ```
    public init(values: [String: StoredValue] = [:], schemaVersion: Int = 0, events: [StoreEvent] = []) {
        self.values = values
        self.schemaVersion = schemaVersion
        self.events = events
    }

    /// Applies a batch of changes, as a backend does when it commits them.
    ///
    /// ```swift
    /// snapshot.apply(BackendChanges(values: ["b": .bool(true)]))
    /// ```
    public mutating func apply(_ changes: BackendChanges) {
        for (key, value) in changes.values {
            values[key] = value
        }
        if let version = changes.schemaVersion { schemaVersion = version }
    }
}

/// A batch of changes that a backend commits atomically.
///
/// ```swift
/// let changes = BackendChanges(values: ["volume": .double(0.8), "old": nil], durability: .immediate)
/// ```
public struct BackendChanges: Sendable {
    /// The new value of each changed key; `nil` removes the key.
    ///
    /// ```swift
    /// changes.values["old"] = .some(nil)  // remove "old"
    /// ```
    public var values: [String: StoredValue?]
    /// The new schema version, or `nil` to leave it as it is.
    ///
    /// ```swift
    /// changes.schemaVersion = 3
    /// ```
    public var schemaVersion: Int?
    /// Whether the commit must be synced to disk before it returns.
    ///
    /// ```swift
    /// changes.durability  //=> .immediate
    /// ```
    public var durability: Durability
    /// When each write of ``values`` was made, for a backend with a ``Backend/writeClock``: the
    /// store's `set`s and removals are stamped when made, and a key with no stamp here (a
    /// transaction's, an `update`'s, a migration's) is the backend's to stamp at commit. Empty
    /// for every other backend.
    ///
    /// ```swift
    /// changes.stamps["volume"]  //=> 1780000000000.0, the moment of the set
    /// ```
    public var stamps: [String: HybridTimestamp] = [:]
    /// Keys of ``values`` that a migration moved without changing the value (`renameKey`): each
    /// new key and the key its value came from. A backend that stamps writes gives such a value
    /// its source's stamp, so a value merely carried over does not beat a change made after it
    /// elsewhere. Empty for every batch but a migration's.
    ///
    /// ```swift
    /// changes.carriedFrom  //=> ["sidebar": "tabs"]
    /// ```
    public var carriedFrom: [String: String] = [:]

    /// Creates a batch.
    ///
    /// ```swift
    /// BackendChanges(values: ["a": .int(1)])
    /// ```
    public init(values: [String: StoredValue?] = [:], schemaVersion: Int? = nil, durability: Durability = .deferred) {
        self.values = values
        self.schemaVersion = schemaVersion
        self.durability = durability
    }

    /// True when committing this batch would change nothing.
    ///
    /// ```swift
    /// BackendChanges().isEmpty  //=> true
    /// ```
    public var isEmpty: Bool { values.isEmpty && schemaVersion == nil }
}
