import Foundation
import Synchronization

/// The engine: an in-memory snapshot of every preference over a pluggable ``Backend``.
///
/// A read is a lock and a dictionary lookup (a ``Stored`` read of an unchanged value not even
/// that). A write updates memory, notifies observers, and is persisted by the backend:
/// coalesced shortly after (``Durability/deferred``, the default) or before the call
/// returns (``Durability/immediate``).
///
/// ```swift
/// let store = try PreferenceStore(.sqlite(at: url))
/// store.set(3, forKey: "count")
/// store.value(forKey: "count", as: Int.self)  //=> 3
/// try store.update(.launchCount) { $0 += 1 }
/// try store.flush()
/// ```
public final class PreferenceStore: Sendable {
    /// Where the data lives.
    ///
    /// ```swift
    /// store.backend.location  //=> "/home/me/.local/share/app/prefs.sqlite"
    /// ```
    public let backend: any Backend
    /// When writes reach the disk.
    ///
    /// ```swift
    /// store.durability  //=> .deferred
    /// ```
    public let durability: Durability
    /// Whether writes are refused because the data is newer than this app (see ``NewerSchemaPolicy``).
    ///
    /// ```swift
    /// try PreferenceStore(backend, migrations: migrations, whenNewer: .openReadOnly).isReadOnly  //=> true
    /// ```
    public let isReadOnly: Bool

    struct State {
        var values: [String: StoredValue]
        var registeredDefaults: [String: StoredValue] = [:]
        var schemaVersion: Int
        var slots: [String: KeySlot] = [:]
        /// Local writes not yet committed; `nil` marks a removal.
        var pending: [String: StoredValue?] = [:]
        var flushScheduled = false
        var reloadScheduled = false
        var observers = ObserverTable()
        /// Changes waiting to be delivered, in the order they happened.
        var deliveries: [Delivery] = []
        var isDelivering = false
        var recentEvents: [StoreEvent] = []
        var eventListeners: [Int: @Sendable (StoreEvent) -> Void] = [:]
    }

    let state: Mutex<State>
    /// Serialises every conversation with the backend (commit, reload, exclusive access), so a
    /// reload can never land between a commit and the merge of its result.
    let backendLock = Mutex<Void>(())

    /// How long deferred writes wait to be committed together.
    static let flushDelay: DispatchTimeInterval = .milliseconds(50)

    /// Opens a store over `backend`, running every migration newer than the stored schema version first.
    /// Data from a newer app (a schema version above the last migration) fails the open, or opens
    /// read-only with `whenNewer: .openReadOnly`.
    ///
    /// ```swift
    /// let store = try PreferenceStore(.plist(suite: "com.example.app"))
    /// let fast = try PreferenceStore(.sqlite(at: url), durability: .immediate)
    /// let safe = try PreferenceStore(.sqlite(at: url), migrations: migrations, whenNewer: .openReadOnly)
    /// ```
    public init(
        _ backend: some Backend,
        migrations: [Migration] = [],
        durability: Durability = .deferred,
        whenNewer: NewerSchemaPolicy = .fail
    ) throws {
        let runner = MigrationRunner(migrations: migrations, durability: durability, whenNewer: whenNewer)
        let opened = try runner.open(backend)
        let snapshot = opened.snapshot
        self.backend = opened.isReadOnly ? ReadOnlyBackend(backend) : backend
        self.durability = durability
        isReadOnly = opened.isReadOnly
        state = Mutex(State(values: snapshot.values, schemaVersion: snapshot.schemaVersion))
        for event in snapshot.events { report(event) }
        StoreRegistry.shared.add(self)
        watchBackend()
    }

    /// A fresh store that lives only in memory: for tests and previews.
    ///
    /// ```swift
    /// let store = PreferenceStore.inMemory()
    /// ```
    public static func inMemory(_ values: [String: StoredValue] = [:]) -> PreferenceStore {
        PreferenceStore(unopened: MemoryBackend(values: values))
    }

    /// Opening a memory backend cannot fail; this avoids a `try` nobody could act on.
    private init(unopened backend: MemoryBackend) {
        self.backend = backend
        durability = .deferred
        isReadOnly = false
        let snapshot = (try? backend.load()) ?? BackendSnapshot()
        state = Mutex(State(values: snapshot.values, schemaVersion: snapshot.schemaVersion))
        StoreRegistry.shared.add(self)
        watchBackend()
    }

    deinit {
        // Release-time flush: the last writes of a store nobody holds any more still land.
        try? flush()  // a failure was reported by flush itself
        backend.stopWatching()
        StoreRegistry.shared.remove(self)
    }

    /// The version of the last migration committed to this store's data.
    ///
    /// ```swift
    /// store.schemaVersion  //=> 2
    /// ```
    public var schemaVersion: Int { state.withLock { $0.schemaVersion } }

    /// Every key that has a stored value, sorted.
    ///
    /// ```swift
    /// store.keys  //=> ["launchCount", "volume"]
    /// ```
    public var keys: [String] { state.withLock { $0.values.keys.sorted() } }

    /// The raw stored value of `key` (or its registered default), without decoding.
    ///
    /// ```swift
    /// store.storedValue(forKey: "volume")  //=> .double(0.5)
    /// ```
    public func storedValue(forKey key: String) -> StoredValue? {
        state.withLock { $0.values[key] ?? $0.registeredDefaults[key] }
    }

    /// Whether `key` has a value of its own. Registered defaults are not persisted, so they do
    /// not count: this answers "has the user chosen yet?".
    ///
    /// ```swift
    /// store.register(defaults: ["volume": 0.5])
    /// store.hasValue(forKey: "volume")  //=> false
    /// ```
    public func hasValue(forKey key: String) -> Bool {
        state.withLock { $0.values[key] != nil }
    }

    /// Every stored key and value, as one dictionary.
    ///
    /// ```swift
    /// store.dictionaryRepresentation()  //=> ["volume": .double(0.5)]
    /// ```
    public func dictionaryRepresentation() -> [String: StoredValue] {
        state.withLock { $0.values }
    }

    /// Values read when a key has no stored value (and the caller gave no default of its own).
    /// Registered defaults are not persisted, like `UserDefaults.register(defaults:)`.
    ///
    /// ```swift
    /// store.register(defaults: ["volume": 0.5, "name": "Guest"])
    /// store.value(forKey: "volume", as: Double.self)  //=> 0.5
    /// ```
    public func register(defaults: [String: any Storable]) {
        state.withLock { state in
            for (key, value) in defaults {
                state.registeredDefaults[key] = value.storedValue
                state.slots[key]?.advance()
            }
        }
    }

    // MARK: - The write path

    /// Applies a local change in memory, queues it for the backend and notifies observers.
    /// A value equal to what is stored changes nothing: no notification, no backend write.
    func apply(_ newValue: StoredValue?, forKey key: String) {
        if refuseIfReadOnly(newValue, forKey: key) || !admitLocalWrite(newValue, forKey: key) { return }
        applyLocally { state, slots in
            guard state.change(key, to: newValue, origin: .local, slots: &slots) else { return false }
            state.pending[key] = .some(newValue)
            return true
        }
    }

    /// Removes every stored value in one change: one commit to the backend, and each observer told
    /// of each key it watches. Registered defaults stay registered, so keys read as their defaults.
    ///
    /// ```swift
    /// store.removeAll()
    /// store.keys  //=> []
    /// ```
    public func removeAll() {
        if isReadOnly {
            if !keys.isEmpty { report(.commitFailed(.readOnly(path: backend.location))) }
            return
        }
        applyLocally { state, slots in
            var changed = false
            for key in Array(state.values.keys) where state.change(key, to: nil, origin: .local, slots: &slots) {
                state.pending[key] = .some(nil)
                changed = true
            }
            return changed
        }
    }

    /// The write path shared by every local change: `change` updates memory and `pending` under
    /// the lock (collecting the slots it advanced) and says whether anything changed; then the
    /// commit is scheduled (deferred) or made (immediate) and observers are told.
    private func applyLocally(_ change: (inout State, inout [KeySlot]) -> Bool) {
        let changedSlots = state.withLock { state -> [KeySlot]? in
            var slots: [KeySlot] = []
            guard change(&state, &slots) else { return nil }
            if durability == .deferred, !state.flushScheduled {
                state.flushScheduled = true
                scheduleFlush()
            }
            return slots
        }
        guard let changedSlots else { return }
        for slot in changedSlots { slot.markChanged() }
        deliverChanges()
        if durability == .immediate {
            try? flush()  // reported by flush; the values stay pending for the next flush
        }
    }

    /// Merges data read from the backend into memory; keys with local uncommitted writes keep them.
    func merge(_ snapshot: BackendSnapshot, origin: Change.Origin) {
        let changedSlots = state.withLock { state -> [KeySlot] in
            var slots: [KeySlot] = []
            // Data that arrives with a newer schema version was changed by a migration (another
            // process's open); an older one means the data was reset (a deleted file).
            let changeOrigin: Change.Origin =
                origin == .external && snapshot.schemaVersion > state.schemaVersion ? .migration : origin
            state.schemaVersion = snapshot.schemaVersion
            let keys = Set(state.values.keys).union(snapshot.values.keys)
            for key in keys where state.pending.index(forKey: key) == nil {
                state.change(key, to: snapshot.values[key], origin: changeOrigin, slots: &slots)
            }
            return slots
        }
        for slot in changedSlots { slot.markChanged() }
        for event in snapshot.events { report(event) }
    }

    /// Puts already-committed local changes into memory (they are not pending: they are on disk).
    func applyCommitted(_ changes: [String: StoredValue?]) {
        let changedSlots = state.withLock { state -> [KeySlot] in
            var slots: [KeySlot] = []
            for (key, newValue) in changes where state.pending.index(forKey: key) == nil {
                state.change(key, to: newValue, origin: .local, slots: &slots)
            }
            return slots
        }
        for slot in changedSlots { slot.markChanged() }
    }

    /// The shared per-key record, created on first use.
    func slot(for key: String) -> KeySlot {
        state.withLock { state in
            if let slot = state.slots[key] { return slot }
            let slot = KeySlot(name: key)
            state.slots[key] = slot
            return slot
        }
    }

    // MARK: - Diagnostics

    /// Records `event` and tells every diagnostics listener.
    func report(_ event: StoreEvent) {
        let listeners = state.withLock { state in
            state.recentEvents.append(event)
            if state.recentEvents.count > 100 { state.recentEvents.removeFirst() }
            return Array(state.eventListeners.values)
        }
        for listener in listeners { listener(event) }
    }

    /// The last 100 events (decoding failures, quarantined files, failed writes), oldest first.
    ///
    /// ```swift
    /// store.recentEvents.last  //=> Key 'volume' holds string, not Double; ...
    /// ```
    public var recentEvents: [StoreEvent] { state.withLock { $0.recentEvents } }
}

extension PreferenceStore.State {
    /// Sets one key in memory if its value differs: advances the key's generation (collecting its
    /// slot for Observation in `slots`) and queues the change for observers. Returns whether it changed.
    @discardableResult
    mutating func change(_ key: String, to newValue: StoredValue?, origin: Change.Origin, slots: inout [KeySlot]) -> Bool {
        let oldValue = values[key]
        guard oldValue != newValue else { return false }
        values[key] = newValue
        if let slot = self.slots[key] {
            slot.advance()
            slots.append(slot)
        }
        enqueue(Change(key: key, oldValue: oldValue, newValue: newValue, origin: origin))
        return true
    }
}
