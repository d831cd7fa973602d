/// A property backed by a ``PreferenceStore``: the `@AppStorage` experience, anywhere.
///
/// Reading an unchanged value costs an atomic load and a cached copy (Codable values decode
/// only after they changed). Writing stores, notifies and persists. It works in structs,
/// classes, actors and `@Observable` models (mark it `@ObservationIgnored`; reads are tracked
/// by Observation through the store).
///
/// ```swift
/// struct Settings {
///     @Stored("launchCount") var launchCount = 0
///     @Stored("theme", store: store) var theme = Theme.dark
///     @Stored(.sidebar, store: store) var customization
///     @Stored("nickname") var nickname: String?
/// }
/// settings.launchCount += 1
/// for await count in settings.$launchCount.values { print(count) }
/// settings.$launchCount.reset()
/// ```
@propertyWrapper
public struct Stored<Value: Sendable>: Sendable {
    /// The key this property reads and writes.
    ///
    /// ```swift
    /// $volume.key.name  //=> "volume"
    /// ```
    public let key: StoredKey<Value>
    /// The store this property reads and writes.
    ///
    /// ```swift
    /// $volume.store.keys  //=> ["volume"]
    /// ```
    public let store: PreferenceStore
    @usableFromInline let cache: DecodedValueCache<Value>

    /// A property for `key` in `store`.
    ///
    /// ```swift
    /// @Stored(.volume, store: store) var volume
    /// ```
    public init(_ key: StoredKey<Value>, store: PreferenceStore = .standard) {
        self.key = key
        self.store = store
        cache = DecodedValueCache(slot: store.slot(for: key.name), store: store)
    }

    /// A property for any `Codable` value; the initial value is the default.
    ///
    /// ```swift
    /// @Stored("launchCount") var launchCount = 0
    /// ```
    public init(wrappedValue: Value, _ name: String, store: PreferenceStore = .standard) where Value: Codable {
        self.init(StoredKey(name, default: wrappedValue), store: store)
    }

    /// A property for a `RawRepresentable` value, stored by raw value.
    ///
    /// ```swift
    /// @Stored("theme") var theme = Theme.dark
    /// ```
    public init(wrappedValue: Value, _ name: String, store: PreferenceStore = .standard)
    where Value: RawRepresentable, Value.RawValue: Codable & Sendable {
        self.init(StoredKey(name, default: wrappedValue), store: store)
    }

    /// A property for a `RawRepresentable` and `Codable` value, stored by raw value.
    ///
    /// ```swift
    /// @Stored("theme") var theme = Theme.dark
    /// ```
    public init(wrappedValue: Value, _ name: String, store: PreferenceStore = .standard)
    where Value: RawRepresentable & Codable, Value.RawValue: Codable & Sendable {
        self.init(StoredKey(name, default: wrappedValue), store: store)
    }

    /// An optional property: `nil` until set, and setting `nil` removes the stored value.
    ///
    /// ```swift
    /// @Stored("nickname") var nickname: String?
    /// ```
    public init<Wrapped: Codable & Sendable>(_ name: String, store: PreferenceStore = .standard) where Value == Wrapped? {
        self.init(StoredKey(name), store: store)
    }

    /// An optional `RawRepresentable` property, stored by raw value.
    ///
    /// ```swift
    /// @Stored("lastTheme") var lastTheme: Theme?
    /// ```
    public init<Wrapped: RawRepresentable & Sendable>(_ name: String, store: PreferenceStore = .standard)
    where Value == Wrapped?, Wrapped.RawValue: Codable & Sendable {
        self.init(StoredKey(name), store: store)
    }

    /// An optional `RawRepresentable` and `Codable` property, stored by raw value.
    ///
    /// ```swift
    /// @Stored("lastTheme") var lastTheme: Theme?
    /// ```
    public init<Wrapped: RawRepresentable & Codable & Sendable>(_ name: String, store: PreferenceStore = .standard)
    where Value == Wrapped?, Wrapped.RawValue: Codable & Sendable {
        self.init(StoredKey(name), store: store)
    }

    /// The stored value, or the default when nothing (or something undecodable) is stored.
    ///
    /// ```swift
    /// launchCount += 1
    /// ```
    @inlinable public var wrappedValue: Value {
        get { cache.currentValue ?? store.read(key, cache: cache) }
        nonmutating set { store[key] = newValue }
    }

    /// `$property`: the value's stream, reset, observation and persistence state.
    ///
    /// ```swift
    /// $launchCount.reset()
    /// ```
    public var projectedValue: Stored<Value> { self }

    /// The current value, then every new value.
    ///
    /// ```swift
    /// for await count in $launchCount.values { print(count) }  //=> 0, 1, 2, ...
    /// ```
    public var values: AsyncStream<Value> { store.values(for: key) }

    /// Removes the stored value, so the property reads as its default again.
    ///
    /// ```swift
    /// $launchCount.reset()
    /// launchCount  //=> 0
    /// ```
    public func reset() {
        store.removeValue(forKey: key.name)
    }

    /// Whether a value is stored (false: the property reads as its default).
    ///
    /// ```swift
    /// $launchCount.isPersisted  //=> false
    /// ```
    public var isPersisted: Bool { store.hasValue(for: key) }

    /// Calls `handler` with each change; lasts as long as the returned token.
    ///
    /// ```swift
    /// let token = $volume.observe { change in print(change.newValue) }
    /// ```
    public func observe(_ handler: @escaping @Sendable (ValueChange<Value>) -> Void) -> ObservationToken {
        store.observe(key, handler)
    }
}
