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
///
/// ## Topics
///
/// ### Opening a store
/// - ``init(_:migrations:durability:whenNewer:)-(Backend,_,_,_)``
/// - ``init(_:migrations:durability:whenNewer:)-(AnyBackend,_,_,_)``
/// - ``init(fileAt:durability:migrations:corruption:whenNewer:)``
/// - ``init(_:layers:migrations:durability:whenNewer:)-(Backend,_,_,_,_)``
/// - ``init(_:layers:migrations:durability:whenNewer:)-(AnyBackend,_,_,_,_)``
/// - ``inMemory(_:)``
/// - ``standard``
/// - ``backend``
/// - ``durability``
/// - ``isReadOnly``
///
/// ### Reading
/// - ``storedValue(forKey:)``
/// - ``hasValue(forKey:)``
/// - ``keys``
/// - ``dictionaryRepresentation()``
/// - ``register(defaults:)``
///
/// ### Layers
/// - ``source(forKey:)``
/// - ``isForced(forKey:)``
/// - ``userValue(forKey:as:)``
/// - ``readsLaunchArguments``
///
/// ### Writing
/// - ``removeAll()``
/// - ``flush()``
/// - ``update(_:_:)``
/// - ``transaction(_:)``
///
/// ### Keys every backend holds
/// - ``maximumKeyLength``
/// - ``reservedKeys``
/// - ``checkKey(_:)``
///
/// ### Observing changes
/// - ``changes``
/// - ``values(for:)``
///
/// ### Migrations and diagnostics
/// - ``schemaVersion``
/// - ``diagnostics``
/// - ``recentEvents``
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
    /// Whether writes are refused: the data is newer than this app (see ``NewerSchemaPolicy``), or
    /// the backend may only read (``Backend/missingWritePrivilege``, such as a PostgreSQL role
    /// granted `SELECT` alone: each write is then refused at once with
    /// ``StoreError/writeNotPermitted(location:key:privilege:)``). A store becomes read-only while
    /// open when a commit is refused for a privilege and its backend then says it may only read
    /// (a PostgreSQL access rule made read-only): from then on it refuses as if it had opened so,
    /// until it is opened again.
    ///
    /// ```swift
    /// try PreferenceStore(backend, migrations: migrations, whenNewer: .openReadOnly).isReadOnly  //=> true
    /// try PreferenceStore(.postgres(url: "postgresql://reporting@db/prefs")).isReadOnly  //=> true
    /// ```
    public var isReadOnly: Bool { openedReadOnly || becameReadOnly.load(ordering: .acquiring) }
    /// Whether the store opened read-only (``backend`` is then a ``ReadOnlyBackend``).
    let openedReadOnly: Bool
    /// Whether the store learned since its open that its backend may only read (``writingBackend`` then refuses).
    let becameReadOnly = Atomic<Bool>(false)
    /// The refusing wrapper of ``backend`` made when the store became read-only while open.
    let lateReadOnlyBackend = Mutex<ReadOnlyBackend?>(nil)
    /// `backend` as a ``DateValidatingBackend``, asked once here rather than on every write.
    let dateValidatingBackend: (any DateValidatingBackend)?
    /// Whether the store was opened with layers: without them every read takes the one-layer path.
    let hasLayers: Bool
    /// The backend's ``Backend/writeClock``, asked once: each `set` is stamped with it when made.
    let writeClock: HybridLogicalClock?
    /// Tells Observation trackers of ``syncState`` that it changed.
    let syncStateSlot = KeySlot(name: "")

    struct State {
        var values: [String: StoredValue]
        var registeredDefaults: [String: StoredValue] = [:]
        var schemaVersion: Int
        var slots: [String: KeySlot] = [:]
        /// Local writes not yet committed, each with when it was made (for a backend with a
        /// ``Backend/writeClock``). One dictionary, so a `set` hashes its key once.
        var pending: [String: PendingChange] = [:]
        var flushScheduled = false
        var reloadScheduled = false
        /// Reloads failed in a row; the next retry waits `reloadRetryDelays[reloadFailures - 1]`.
        var reloadFailures = 0
        var observers = ObserverTable()
        /// Changes waiting to be delivered, in the order they happened.
        var deliveries: [Delivery] = []
        var isDelivering = false
        var recentEvents: [StoreEvent] = []
        var eventListeners: [Int: @Sendable (StoreEvent) -> Void] = [:]
        /// The layers other than the backend; `nil` for a store without layers.
        var layers: LayerTable? = nil
        var layerWatchers: [DirectoryWatcher] = []
    }

    let state: Mutex<State>
    /// Serialises every conversation with the backend (commit, reload, exclusive access), so a
    /// reload can never land between a commit and the merge of its result.
    let backendLock = Mutex<Void>(())

    /// Serialises layer reloads, so an older read of a layer file never lands after a newer one.
    let layerReloadLock = Mutex<Void>(())

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
    public convenience init(
        _ backend: some Backend,
        migrations: [Migration] = [],
        durability: Durability = .deferred,
        whenNewer: NewerSchemaPolicy = .fail
    ) throws {
        try self.init(backend, layers: [], migrations: migrations, durability: durability, whenNewer: whenNewer)
    }

    /// Opens a store over `backend` (the user's values, the only layer written) that reads each key
    /// through `layers` too: forced, arguments and environment above the user's values, defaults
    /// below (see <doc:LayersAndAdministrators>). Migrations see the user's values only. Layer files are read now
    /// and watched for changes; one that cannot be read is reported and reads as empty.
    ///
    /// ```swift
    /// let store = try PreferenceStore(.sqlite(at: userFile), layers: [
    ///     .forced(.plist(at: URL(filePath: "/etc/xdg/myapp/forced.plist"))),
    ///     .arguments(CommandLine.arguments),
    ///     .environment(prefix: "MYAPP_"),
    ///     .defaults(.plist(at: URL(filePath: "/etc/xdg/myapp/defaults.plist"))),
    /// ])
    /// ```
    public init(
        _ backend: some Backend,
        layers: [PreferenceLayer],
        migrations: [Migration] = [],
        durability: Durability = .deferred,
        whenNewer: NewerSchemaPolicy = .fail
    ) throws {
        let runner = MigrationRunner(migrations: migrations, durability: durability, whenNewer: whenNewer)
        let opened = try runner.open(backend)
        let snapshot = opened.snapshot
        self.backend = opened.isReadOnly ? ReadOnlyBackend(backend, missingPrivilege: opened.missingPrivilege) : backend
        dateValidatingBackend = self.backend as? any DateValidatingBackend
        self.durability = durability
        openedReadOnly = opened.isReadOnly
        writeClock = backend.writeClock
        // The layers start empty and are read once their files are watched (below).
        let table = layers.isEmpty ? nil : LayerTable(layers, contents: layers.map { _ in [:] })
        hasLayers = table != nil
        state = Mutex(State(values: snapshot.values, schemaVersion: snapshot.schemaVersion, layers: table))
        for event in snapshot.events { report(event) }
        StoreRegistry.shared.add(self)
        watchBackend()
        if hasLayers { watchAndReadLayers(layers) }
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
        dateValidatingBackend = nil
        durability = .deferred
        openedReadOnly = false
        hasLayers = false
        writeClock = nil
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
    public var keys: [String] {
        state.withLock { state in
            guard let layers = state.layers else { return state.values.keys.sorted() }
            return layers.keys.union(state.values.keys).sorted()
        }
    }

    /// Every stored key and value, as one dictionary; in a store with layers, each key's value from
    /// its highest layer (text from arguments and the environment as `.string`).
    ///
    /// ```swift
    /// store.dictionaryRepresentation()  //=> ["volume": .double(0.5)]
    /// ```
    public func dictionaryRepresentation() -> [String: StoredValue] {
        state.withLock { state in
            guard state.layers != nil else { return state.values }
            var values: [String: StoredValue] = [:]
            for key in state.layers!.keys.union(state.values.keys) {
                values[key] = state.layeredValue(forKey: key).top?.value
            }
            return values
        }
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

    /// The shared per-key record, created on first use.
    func slot(for key: String) -> KeySlot {
        state.withLock { state in
            if let slot = state.slots[key] { return slot }
            let slot = KeySlot(name: key)
            state.slots[key] = slot
            return slot
        }
    }
}

extension PreferenceStore.State {
    /// Sets one key in memory if its value differs: advances the key's generation (collecting its
    /// slot for Observation in `slots`) and queues the change for observers. Returns whether it changed.
    @discardableResult
    mutating func change(_ key: String, to newValue: StoredValue?, origin: Change.Origin, slots: inout [KeySlot]) -> Bool {
        let oldValue = values[key]
        guard oldValue != newValue else { return false }
        if layers != nil {
            changeUnderLayers(key, to: newValue, origin: origin, slots: &slots)
            return true
        }
        values[key] = newValue
        if let slot = self.slots[key] {
            slot.advance()
            slots.append(slot)
        }
        enqueue(Change(key: key, oldValue: oldValue, newValue: newValue, origin: origin))
        return true
    }
}
