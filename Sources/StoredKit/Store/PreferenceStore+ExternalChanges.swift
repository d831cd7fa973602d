import Dispatch

// The external-change merge: the backend signals that someone else wrote, the store reloads and
// merges the snapshot into memory (its own uncommitted writes win) and observers hear `.external`.
extension PreferenceStore {
    /// Listens for other processes' changes from the open to the end of the store, observed or
    /// not: reads and Observation trackers see them too. The backend holds the store weakly.
    func watchBackend() {
        listenForSignals()
        do {
            let schedule: @Sendable () -> Void = { [weak self] in self?.scheduleReload() }
            if let reloading = backend as? any ReloadingBackend {
                try reloading.startWatching(schedule, reloadingNow: { [weak self] in self?.reloadFromBackend() })
            } else {
                try backend.startWatching(schedule)
            }
        } catch {
            report(.reloadFailed(StoreError(error, path: backend.location, operation: "watch")))
        }
    }

    /// Coalesces bursts of change signals into one reload on a background queue.
    func scheduleReload() {
        let schedule = state.withLock { state in
            guard !state.reloadScheduled else { return false }
            state.reloadScheduled = true
            return true
        }
        guard schedule else { return }
        DispatchQueue.global().async { [weak self] in self?.reloadFromBackend() }
    }

    /// Reads the backend and merges what other processes changed, with origin `.external`. A
    /// read that fails is tried again (see ``reloadRetryDelays``).
    func reloadFromBackend() {
        do {
            try withBackendLock {
                state.withLock { $0.reloadScheduled = false }
                merge(try backend.load(), origin: .external)
            }
            state.withLock { $0.reloadFailures = 0 }
        } catch {
            report(.reloadFailed(StoreError(error, path: backend.location, operation: "reload")))
            retryReloadLater()
        }
        deliverChanges()
    }

    /// How long a store waits before it reads again after a failed reload, one delay per failure
    /// in a row. The change that signalled the reload is not announced again: without a retry the
    /// store would show the old value until the next change from elsewhere, which may never come
    /// (a database server still refusing reads just after a restart, a file being replaced).
    /// After the last delay it waits for the next signal.
    static let reloadRetryDelays: [Duration] = [
        .milliseconds(50), .milliseconds(200), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4),
    ]

    private func retryReloadLater() {
        let failures = state.withLock { state in
            state.reloadFailures += 1
            return state.reloadFailures
        }
        guard failures <= Self.reloadRetryDelays.count else {
            state.withLock { $0.reloadFailures = 0 }
            return
        }
        let (seconds, attoseconds) = Self.reloadRetryDelays[failures - 1].components
        let delay = DispatchTimeInterval.milliseconds(Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in self?.scheduleReload() }
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
}
