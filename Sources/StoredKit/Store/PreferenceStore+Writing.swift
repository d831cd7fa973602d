import Synchronization

// The write path: a local change lands in memory, joins the pending batch (the write queue that
// PreferenceStore+Durability.swift commits) and is delivered to observers.
extension PreferenceStore {
    /// Applies a local change in memory, queues it for the backend and notifies observers.
    /// A value equal to what is stored changes nothing: no notification, no backend write.
    /// `facts` are what the encoder saw of `newValue`, if it made it.
    func apply(_ newValue: StoredValue?, forKey key: String, facts: EncodingFacts = .unknown) {
        if refuseIfReadOnly(newValue, forKey: key) || !admitLocalWrite(newValue, forKey: key, facts: facts) { return }
        if hasLayers, !admitLayeredWrite(forKey: key) { return }
        applyLocally { state, slots in
            // A backend that merges by when writes were made is told of a write that changes nothing
            // here too: the value shown may be older than one set elsewhere that it has not seen, and
            // this write, made later, must win over that one. Observers hear nothing of it.
            guard state.change(key, to: newValue, origin: .local, slots: &slots) || writeClock != nil else { return false }
            state.pending[key] = PendingChange(newValue, stamp: writeClock?.tick())  // made now, whenever it commits
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
            if let first = state.withLock({ $0.values.keys.min() }) { report(.commitFailed(readOnlyRefusal(forKey: first))) }
            return
        }
        var refused: [StoreEvent] = []
        defer { for event in refused { report(event) } }
        applyLocally { state, slots in
            var changed = false
            for key in Array(state.values.keys) {
                // A forced key keeps the user's value: any write of it is refused.
                if let forced = state.layers?.entry(for: key).upper.first(where: \.isForced) {
                    refused.append(.forcedWriteRefused(key: key, source: forced.source))
                    continue
                }
                guard state.change(key, to: nil, origin: .local, slots: &slots) else { continue }
                state.pending[key] = PendingChange(nil, stamp: writeClock?.tick())
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
            if let section = ExclusiveSection.current(for: self) {
                section.flushWhenDone()  // inside a transaction body: this thread holds the backend lock
            } else {
                try? flush()  // reported by flush; the values stay pending for the next flush
            }
        }
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
}

extension PreferenceStore: PreferenceAccess {
    /// Stores a raw value (`nil` removes the key), notifying observers if it changed.
    ///
    /// ```swift
    /// store.setStoredValue(.int(3), forKey: "count")
    /// ```
    public func setStoredValue(_ value: StoredValue?, forKey key: String) {
        apply(value, forKey: key)
    }
}

extension PreferenceStore: AccessFailureReporting {
    /// Reports a value that could not be encoded on the store's diagnostics; nothing was written.
    func encodingFailed(forKey key: String, error: any Error) {
        report(.encodingFailed(key: key, reason: "\(error)"))
    }

    /// Reports a stored value that did not decode; the stored value stays as it is.
    func decodingFailed(forKey key: String, expected: String, found: StoredValue) {
        report(.decodingFailed(key: key, expected: expected, found: "\(found.typeName) \(found)"))
    }
}
