// What a store with layers answers about where a key's value comes from, and the layered read path
// behind every typed read (`@Stored`, subscripts, `value(forKey:as:)`, observers, transactions).
extension PreferenceStore {
    /// Where `key`'s value comes from now: the highest layer that has it, ``ValueSource/registered``
    /// or ``ValueSource/keyDefault``. Text from arguments and the environment counts as long as it is
    /// there; a typed read that cannot convert it goes on to the next layer (and reports it).
    ///
    /// ```swift
    /// store.source(forKey: "volume")  //=> .environment(variable: "MYAPP_VOLUME")
    /// ```
    public func source(forKey key: String) -> ValueSource {
        let (source, events) = state.withLock { state -> (ValueSource, [StoreEvent]) in
            let layered = state.layeredValue(forKey: key)
            let source = layered.top?.source ?? (layered.registered == nil ? .keyDefault : .registered)
            // The lookup notes two keys that share an environment variable: reported here too.
            return (source, state.takeLayerEvents())
        }
        for event in events { report(event) }
        return source
    }

    /// Whether an administrator forced `key`, like UserDefaults' `objectIsForced(forKey:)`: a UI
    /// should disable its control, since writes of it are refused.
    ///
    /// ```swift
    /// store.isForced(forKey: "volume")  //=> true
    /// ```
    public func isForced(forKey key: String) -> Bool {
        forcedSource(forKey: key) != nil
    }

    /// The user's own value of `key` (the store's backend), also while a higher layer hides it;
    /// `nil` when the user has none or it does not decode as `Value` (reported).
    ///
    /// ```swift
    /// store.userValue(forKey: "volume", as: Double.self)  //=> 0.8, while the administrator forces 0.3
    /// ```
    public func userValue<Value: Codable & Sendable>(forKey key: String, as type: Value.Type = Value.self) -> Value? {
        guard let stored = state.withLock({ $0.values[key] }) else { return nil }
        let coder = StoredCoder<Value>.codable()
        do {
            return try coder.decode(stored)
        } catch {
            decodingFailed(forKey: key, expected: coder.typeName, found: stored)
            return nil
        }
    }

    /// The forced layer's source when `key` is forced.
    func forcedSource(forKey key: String) -> ValueSource? {
        guard hasLayers else { return nil }
        return state.withLock { state in
            state.layers?.entry(for: key).upper.first(where: \.isForced)?.source
        }
    }

    /// `key` as every layer holds it, for a typed read.
    func layeredValue(forKey key: String) -> LayeredValue {
        let (layered, events) = state.withLock { state in (state.layeredValue(forKey: key), state.takeLayerEvents()) }
        for event in events { report(event) }
        return layered
    }

    /// The read behind ``Stored`` when the cached value is stale, for a store with layers.
    func readThroughLayers<Value>(_ key: StoredKey<Value>, cache: DecodedValueCache<Value>) -> Value {
        let slot = cache.slot
        // The highest value decodes in the common case: one lookup in the layer memo, no copy of it.
        let (top, generation, events) = state.withLock { state in
            (state.topValue(forKey: key.name), slot.generation, state.takeLayerEvents())
        }
        for event in events { report(event) }
        guard let top else {
            cache.remember(key.defaultValue, at: generation)
            return key.defaultValue
        }
        // `do`, not `try?`: an optional of a generic value costs a metadata lookup on every read.
        do {
            let value = try key.coder.decode(top)
            cache.remember(value, at: generation)
            return value
        } catch {
            // Text to convert, or a value that falls through to a lower layer: the full resolution, which reports.
        }
        let (layered, current) = state.withLock { state in (state.layeredValue(forKey: key.name), slot.generation) }
        let value =
            layered.resolve(typeName: key.coder.typeName, reporter: self, key: key.name, decode: key.coder.decode)
            ?? key.defaultValue
        cache.remember(value, at: current)
        return value
    }

    /// Refuses a write of a forced key (reported) and reports, once per key, a write that a higher
    /// layer hides. Returns whether the write may go on.
    func admitLayeredWrite(forKey key: String) -> Bool {
        let (upper, firstReport) = state.withLock { state -> (LayerTable.Candidate?, Bool) in
            guard let upper = state.layers?.entry(for: key).upper.first else { return (nil, false) }
            return (upper, upper.isForced ? true : state.layers!.reportedOverrides.insert(key).inserted)
        }
        guard let upper else { return true }
        if upper.isForced {
            report(.forcedWriteRefused(key: key, source: upper.source))
            return false
        }
        if firstReport { report(.writeOverridden(key: key, source: upper.source)) }
        return true
    }
}

extension PreferenceStore.State {
    /// The value a read decodes first: the highest layer's (text from arguments and the
    /// environment as `.string`), or the registered default. Without building a ``LayeredValue``:
    /// a read that decodes it needs nothing else, and looks up the user's values only when no
    /// upper layer has the key.
    mutating func topValue(forKey key: String) -> StoredValue? {
        guard layers != nil else { return values[key] ?? registeredDefaults[key] }
        let top: StoredValue?
        if let remembered = layers!.tops[key] {
            top = remembered
        } else {
            let entry = layers!.entry(for: key)
            top = entry.hasUpper ? entry.upper[0].value : values[key] ?? (entry.hasLower ? entry.lower[0].value : nil)
            layers!.tops[key] = .some(top)
        }
        return top ?? (registeredDefaults.isEmpty ? nil : registeredDefaults[key])
    }

    /// `key` as every layer holds it now.
    mutating func layeredValue(forKey key: String) -> LayeredValue {
        // Most stores register nothing: an empty dictionary is not even hashed into.
        LayeredValue(
            entry: layers?.entry(for: key) ?? .empty, user: values[key],
            registered: registeredDefaults.isEmpty ? nil : registeredDefaults[key])
    }

    /// Events the layer table noted under the lock (environment collisions), to report after it.
    mutating func takeLayerEvents() -> [StoreEvent] {
        // Tested in place: copying the table out would retain all of it on every read.
        guard layers?.pendingEvents.isEmpty == false else { return [] }
        defer { layers!.pendingEvents.removeAll() }
        return layers!.pendingEvents
    }

    /// ``change(_:to:origin:slots:)`` under layers: the user's value changes; observers hear of it
    /// only when the key's highest value changed.
    mutating func changeUnderLayers(_ key: String, to newValue: StoredValue?, origin: Change.Origin, slots: inout [KeySlot]) {
        let before = layeredValue(forKey: key)
        values[key] = newValue
        var after = before
        after.user = newValue
        layers!.tops[key] = .some(after.top?.value)
        if let slot = self.slots[key] {
            slot.advance()
            slots.append(slot)
        }
        enqueueIfTopChanged(key, before, after, origin: origin)
    }

    /// Queues a change when `key`'s highest value differs between `before` and `after`, and one
    /// for typed observers only when a lower value changed under it (see ``Change/isBelowTop``).
    mutating func enqueueIfTopChanged(_ key: String, _ before: LayeredValue, _ after: LayeredValue, origin: Change.Origin) {
        let oldTop = before.top?.value
        let newTop = after.top?.value
        guard oldTop != newTop || before != after else { return }
        var change = Change(key: key, oldValue: oldTop, newValue: newTop, origin: origin)
        change.layered = (before, after)
        change.isBelowTop = oldTop == newTop
        enqueue(change)
    }
}
