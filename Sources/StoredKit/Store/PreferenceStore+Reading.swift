import Synchronization

// The read path: the snapshot in memory, and for typed keys the per-key decode cache
// (DecodedValueCache), which a `@Stored` read consults first; only a stale cache comes here.
extension PreferenceStore {
    /// The raw stored value of `key` (or its registered default), without decoding.
    ///
    /// ```swift
    /// store.storedValue(forKey: "volume")  //=> .double(0.5)
    /// ```
    /// In a store with layers, the highest layer's value (text from arguments and the environment as `.string`).
    public func storedValue(forKey key: String) -> StoredValue? {
        guard hasLayers else { return state.withLock { $0.topValue(forKey: key) } }
        // Reporting what the layer table noted (two keys sharing an environment variable): the
        // typed reads that decode the highest value at once come through here only.
        let (value, events) = state.withLock { state in (state.topValue(forKey: key), state.takeLayerEvents()) }
        for event in events { report(event) }
        return value
    }

    /// Whether `key` has a value of its own. Registered defaults are not persisted, so they do
    /// not count: this answers "has the user chosen yet?" (other layers do not count either).
    ///
    /// ```swift
    /// store.register(defaults: ["volume": 0.5])
    /// store.hasValue(forKey: "volume")  //=> false
    /// ```
    public func hasValue(forKey key: String) -> Bool {
        state.withLock { $0.values[key] != nil }
    }

    /// The read behind ``Stored`` when the cached value is stale: one locked lookup and one decode.
    @usableFromInline
    func read<Value>(_ key: StoredKey<Value>, cache: DecodedValueCache<Value>) -> Value {
        if hasLayers { return readThroughLayers(key, cache: cache) }
        let slot = cache.slot
        let (stored, generation) = state.withLock { state in
            (state.values[key.name] ?? state.registeredDefaults[key.name], slot.generation)
        }
        let value = decodeOrDefault(stored, key)
        cache.remember(value, at: generation)
        return value
    }

    /// The value of a typed key: its stored value, or its default. Reads are cached like a
    /// ``Stored`` property's: an unchanged value is not looked up or decoded again.
    ///
    /// ```swift
    /// store[.volume] = 0.8
    /// store[.volume]  //=> 0.8
    /// ```
    public subscript<Value>(key: StoredKey<Value>) -> Value {
        @inlinable get {
            let cache = key.cache(in: self)
            return cache.currentValue ?? read(key, cache: cache)
        }
        set { write(newValue, forKey: key.name, coder: key.coder) }
    }

    /// ``decodeOrDefault(_:_:)``, or in a store with layers the first layer's value that decodes.
    func decodeOrDefault<Value>(_ stored: StoredValue?, layered: LayeredValue?, _ key: StoredKey<Value>) -> Value {
        guard let layered else { return decodeOrDefault(stored, key) }
        return layered.resolve(
            typeName: key.coder.typeName, reporter: self, key: key.name, decode: key.coder.decode)
            ?? key.defaultValue
    }

    /// Decodes a stored value as `key`'s type; a value that does not decode reads as the default
    /// and is reported, and stays stored.
    func decodeOrDefault<Value>(_ stored: StoredValue?, _ key: StoredKey<Value>) -> Value {
        guard let stored else { return key.defaultValue }
        do {
            return try key.coder.decode(stored)
        } catch {
            decodingFailed(forKey: key.name, expected: key.coder.typeName, found: stored)
            return key.defaultValue
        }
    }

    /// The registered default of `key`, which is never persisted.
    func registeredDefault(forKey key: String) -> StoredValue? {
        state.withLock { $0.registeredDefaults[key] }
    }
}
