// Diagnostics: what the store wants you to know that did not make a call fail (StoreEvent).
extension PreferenceStore {
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

    /// Diagnostics as they happen: values that did not decode, quarantined files, failed writes.
    ///
    /// ```swift
    /// for await event in store.diagnostics { log(event.description) }
    /// ```
    public var diagnostics: AsyncStream<StoreEvent> {
        AsyncStream { continuation in
            let id = state.withLock { state in
                let id = (state.eventListeners.keys.max() ?? 0) + 1
                state.eventListeners[id] = { continuation.yield($0) }
                return id
            }
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.eventListeners.removeValue(forKey: id) }
            }
        }
    }
}
