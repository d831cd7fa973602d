import Dispatch

extension PreferenceStore.State {
    /// Queues `change` for delivery; called under the store's lock so deliveries keep write order.
    mutating func enqueue(_ change: Change) {
        let recipients = observers.recipients(for: change)
        if !recipients.isEmpty { deliveries.append(Delivery(change: change, recipients: recipients)) }
    }
}

extension PreferenceStore {
    /// Calls `handler` for every change of `key`, from this store or from other processes.
    /// Handlers run in the order the changes happened, on the thread that made the change (or
    /// on one already delivering), never under the store's lock, so they may read and write
    /// the store.
    ///
    /// Observation lasts as long as the returned token: dropping it stops the handler at once.
    ///
    /// ```swift
    /// let token = store.observe("volume") { change in print(change) }  //=> volume: 0.5 -> 0.8 (local)
    /// ```
    public func observe(_ key: String, _ handler: @escaping @Sendable (Change) -> Void) -> ObservationToken {
        addObserver(key: key, handler)
    }

    /// Calls `handler` with decoded old and new values for every change of a typed key.
    ///
    /// ```swift
    /// let token = store.observe(.volume) { change in
    ///     print(change.oldValue, change.newValue, change.origin)  //=> 0.5 0.8 local
    /// }
    /// ```
    public func observe<Value>(
        _ key: StoredKey<Value>, _ handler: @escaping @Sendable (ValueChange<Value>) -> Void
    ) -> ObservationToken {
        addObserver(key: key.name, decodes: true) { [weak self] change in
            guard let self else { return }
            if change.readsTheSame(as: key) { return }
            handler(
                ValueChange(
                    key: change.key,
                    oldValue: decodeOrDefault(change.oldValue, layered: change.layered?.old, key),
                    newValue: decodeOrDefault(change.newValue, layered: change.layered?.new, key),
                    origin: change.origin
                ))
        }
    }

    /// Every change of every key, as an async sequence that lasts until the consuming task ends.
    ///
    /// ```swift
    /// for await change in store.changes { print(change.key, change.origin) }
    /// ```
    public var changes: AsyncStream<Change> {
        AsyncStream { continuation in
            let token = addObserver(key: nil) { continuation.yield($0) }
            continuation.onTermination = { _ in token.cancel() }
        }
    }

    /// The current value of `key`, then every new value, as an async sequence.
    ///
    /// ```swift
    /// for await volume in store.values(for: .volume) { print(volume) }  //=> 0.5, then 0.8, ...
    /// ```
    public func values<Value>(for key: StoredKey<Value>) -> AsyncStream<Value> {
        AsyncStream { continuation in
            // The first value is yielded under the store's lock (so it precedes every change);
            // reporting a decoding failure there would re-enter the lock, so it is left to later reads.
            let token = addObserver(
                key: key.name, decodes: true,
                initial: { current, layered in
                    if let layered {
                        continuation.yield(
                            layered.resolve(typeName: "", reporter: nil, key: key.name, decode: key.coder.decode)
                                ?? key.defaultValue)
                    } else {
                        continuation.yield(current.flatMap { try? key.coder.decode($0) } ?? key.defaultValue)
                    }
                }
            ) { [weak self] change in
                guard let self else { return }
                if change.readsTheSame(as: key) { return }
                continuation.yield(decodeOrDefault(change.newValue, layered: change.layered?.new, key))
            }
            continuation.onTermination = { _ in token.cancel() }
        }
    }

    /// Registers an observer; `initial` receives the current value under the same lock, so no
    /// change can slip between the current value and the first change.
    func addObserver(
        key: String?,
        decodes: Bool = false,
        initial: ((StoredValue?, LayeredValue?) -> Void)? = nil,
        _ callback: @escaping ObserverTable.Callback
    ) -> ObservationToken {
        let id = state.withLock { state in
            let id = state.observers.add(key: key, decodes: decodes, callback)
            if let key, let initial {
                if state.layers != nil {
                    initial(nil, state.layeredValue(forKey: key))
                } else {
                    initial(state.values[key] ?? state.registeredDefaults[key], nil)
                }
            }
            return id
        }
        return ObservationToken { [weak self] in self?.removeObserver(id: id, key: key) }
    }

    private func removeObserver(id: Int, key: String?) {
        state.withLock { $0.observers.remove(id: id, key: key) }
    }

    /// Delivers queued changes. Only one thread delivers at a time, so observers see changes in
    /// the order they happened; a thread that finds another delivering leaves its changes to it.
    func deliverChanges() {
        let claimed = state.withLock { state in
            guard !state.isDelivering, !state.deliveries.isEmpty else { return false }
            state.isDelivering = true
            return true
        }
        guard claimed else { return }
        while true {
            let batch = state.withLock { state in
                let batch = state.deliveries
                state.deliveries.removeAll()
                if batch.isEmpty { state.isDelivering = false }
                return batch
            }
            if batch.isEmpty { return }
            for delivery in batch {
                for recipient in delivery.recipients { recipient(delivery.change) }
            }
        }
    }
}
