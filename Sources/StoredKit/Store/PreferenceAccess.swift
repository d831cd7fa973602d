/// The typed read and write API shared by ``PreferenceStore``, ``Transaction`` and
/// ``MigrationContext``: conformers provide raw access; everything typed comes from here.
///
/// ```swift
/// func resetAudio(_ access: some PreferenceAccess) {
///     access.set(0.5, forKey: "volume")
///     access.removeValue(forKey: "muted")
/// }
/// resetAudio(store)
/// try store.transaction { tx in resetAudio(tx) }
/// ```
public protocol PreferenceAccess {
    /// The raw stored value of `key`, or `nil`.
    func storedValue(forKey key: String) -> StoredValue?
    /// Stores `value` under `key`; `nil` removes the key.
    func setStoredValue(_ value: StoredValue?, forKey key: String)
    /// Whether `key` has a value of its own: a registered default does not count.
    func hasValue(forKey key: String) -> Bool
}

extension PreferenceAccess {
    /// Stores any `Codable` value under `key`.
    ///
    /// ```swift
    /// store.set(3, forKey: "count")
    /// store.set(["home", "search"], forKey: "tabs")
    /// ```
    public func set<Value: Codable & Sendable>(_ value: Value, forKey key: String) {
        // Storable values convert directly; building a coder (two type checks, two closures)
        // would cost more than the rest of the write.
        if let storable = value as? any Storable {
            setStoredValue(storable.storedValue, forKey: key)
        } else {
            write(value, forKey: key, coder: .codable())
        }
    }

    /// Stores a `RawRepresentable` value by its raw value.
    ///
    /// ```swift
    /// store.set(Theme.dark, forKey: "theme")  // stored as "dark"
    /// ```
    public func set<Value: RawRepresentable & Sendable>(_ value: Value, forKey key: String)
    where Value.RawValue: Codable & Sendable {
        write(value, forKey: key, coder: .rawValue())
    }

    /// Stores a value that is both `RawRepresentable` and `Codable` by its raw value.
    ///
    /// ```swift
    /// store.set(Theme.dark, forKey: "theme")  // stored as "dark"
    /// ```
    public func set<Value: RawRepresentable & Codable & Sendable>(_ value: Value, forKey key: String)
    where Value.RawValue: Codable & Sendable {
        write(value, forKey: key, coder: .rawValue())
    }

    /// The value stored under `key` as `Value`; `nil` when there is none or it has another type
    /// (reported on the store's diagnostics, and left untouched).
    ///
    /// ```swift
    /// store.value(forKey: "count", as: Int.self)  //=> 3
    /// ```
    public func value<Value: Codable & Sendable>(forKey key: String, as type: Value.Type = Value.self) -> Value? {
        guard let storable = Value.self as? any Storable.Type else { return read(key, coder: .codable()) }
        // Storable values convert directly, without building a coder (as in `set`). The highest
        // value converts in the common case, with layers or without; only text to convert, a
        // value that falls through to a lower layer, or a failure to report takes the full read.
        guard let stored = storedValue(forKey: key) else { return nil }
        if let value = (try? storable.init(storedValue: stored)) as? Value { return value }
        var layered: Value?
        let isLayered = readThroughLayers(key, typeName: String(describing: Value.self), into: &layered) { stored in
            guard let value = try storable.init(storedValue: stored) as? Value else {
                throw StoreError.unrepresentable(key: key, reason: "")
            }
            return value
        }
        if isLayered { return layered }
        reportDecodingFailure(forKey: key, expected: String(describing: Value.self), found: stored)
        return nil
    }

    /// The `RawRepresentable` value stored under `key`.
    ///
    /// ```swift
    /// store.value(forKey: "theme", as: Theme.self)  //=> .dark
    /// ```
    public func value<Value: RawRepresentable & Sendable>(forKey key: String, as type: Value.Type = Value.self) -> Value?
    where Value.RawValue: Codable & Sendable {
        read(key, coder: .rawValue())
    }

    /// The `RawRepresentable` and `Codable` value stored under `key`, read by raw value.
    ///
    /// ```swift
    /// store.value(forKey: "theme", as: Theme.self)  //=> .dark
    /// ```
    public func value<Value: RawRepresentable & Codable & Sendable>(
        forKey key: String, as type: Value.Type = Value.self
    ) -> Value? where Value.RawValue: Codable & Sendable {
        read(key, coder: .rawValue())
    }

    /// Removes the value stored under `key`.
    ///
    /// ```swift
    /// store.removeValue(forKey: "count")
    /// ```
    public func removeValue(forKey key: String) {
        setStoredValue(nil, forKey: key)
    }

    /// The value of a typed key: its stored value, or its default.
    ///
    /// ```swift
    /// store[.volume] = 0.8
    /// store[.volume]  //=> 0.8
    /// ```
    public subscript<Value>(key: StoredKey<Value>) -> Value {
        get { read(key.name, coder: key.coder) ?? key.defaultValue }
        nonmutating set { write(newValue, forKey: key.name, coder: key.coder) }
    }

    /// Whether `key` currently has a stored value of its own. A registered default does not
    /// count: it is never persisted (see ``PreferenceStore/register(defaults:)``).
    ///
    /// ```swift
    /// store.hasValue(for: .volume)  //=> false
    /// ```
    public func hasValue<Value>(for key: StoredKey<Value>) -> Bool {
        hasValue(forKey: key.name)
    }

    /// Whether `key` has a value of its own (for access without registered defaults, whatever it reads).
    ///
    /// ```swift
    /// store.hasValue(forKey: "volume")  //=> false
    /// ```
    public func hasValue(forKey key: String) -> Bool {
        storedValue(forKey: key) != nil
    }

    func write<Value>(_ value: Value, forKey key: String, coder: StoredCoder<Value>) {
        do {
            if let encodeWithFacts = coder.encodeWithFacts, let store = self as? PreferenceStore {
                let encoded = try encodeWithFacts(value)
                store.apply(encoded?.value, forKey: key, facts: encoded?.facts ?? .unknown)
            } else {
                setStoredValue(try coder.encode(value), forKey: key)
            }
        } catch {
            (self as? any AccessFailureReporting)?.encodingFailed(forKey: key, error: error)
        }
    }

    private func reportDecodingFailure(forKey key: String, expected: String, found: StoredValue) {
        (self as? any AccessFailureReporting)?.decodingFailed(forKey: key, expected: expected, found: found)
    }

    func read<Value>(_ key: String, coder: StoredCoder<Value>) -> Value? {
        // As in `value(forKey:as:)`: the highest value first, the full read through layers only when it does not decode.
        guard let stored = storedValue(forKey: key) else { return nil }
        if let value = try? coder.decode(stored) { return value }
        var layered: Value?
        if readThroughLayers(key, typeName: coder.typeName, into: &layered, decode: coder.decode) { return layered }
        reportDecodingFailure(forKey: key, expected: coder.typeName, found: stored)
        return nil
    }
}

extension PreferenceAccess {
    /// When this access is a store or transaction with layers, reads `key` through them into
    /// `result` and returns `true`. Concrete casts and an `inout` result, no existential or nested
    /// optional: this runs on every typed read, with layers or not.
    func readThroughLayers<Value>(
        _ key: String, typeName: @autoclosure () -> String, into result: inout Value?,
        decode: (StoredValue) throws -> Value
    ) -> Bool {
        if let store = self as? PreferenceStore {
            guard store.hasLayers else { return false }
            result = store.layeredValue(forKey: key).resolve(typeName: typeName(), reporter: store, key: key, decode: decode)
            return true
        }
        if let transaction = self as? Transaction, transaction.hasLayers {
            result = transaction.layeredValue(forKey: key).resolve(
                typeName: typeName(), reporter: transaction.reporter, key: key, decode: decode)
            return true
        }
        return false
    }
}

/// How StoredKit's own ``PreferenceAccess`` types hear that a typed read or write failed: a store
/// reports it on its diagnostics, a transaction or migration fails as a whole. Internal, so the
/// public protocol asks of its conformers only what a user would call.
protocol AccessFailureReporting {
    /// A typed write could not be encoded; nothing was written.
    func encodingFailed(forKey key: String, error: any Error)
    /// A stored value did not decode as the type it was read as; it stays stored.
    func decodingFailed(forKey key: String, expected: String, found: StoredValue)
}
