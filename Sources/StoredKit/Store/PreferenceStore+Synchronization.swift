/// A store over a local replica of shared preferences (a ``SynchronizingBackend``, such as
/// `.postgres(url:namespace:replica:)`): where it stands with its server, and a way to wait until
/// it is in step.
extension PreferenceStore {
    /// Where the store's replica stands with its server; nil for a store that keeps no replica.
    /// Reads are tracked by Observation, so a SwiftUI-style view showing it is redrawn when it changes.
    ///
    /// ```swift
    /// store.syncState?.description  //=> offline — 2 changes not synced yet (never synced)
    /// ```
    public var syncState: SyncState? {
        guard let synchronizing else { return nil }
        syncStateSlot.markAccessed()
        return synchronizing.syncState
    }

    /// Commits what is pending, then returns once every write made before the call is on the
    /// server and the replica has caught up with it; throws
    /// ``StoreError/notSynchronized(location:pendingWrites:reason:)`` when that does not happen
    /// within `timeout` (nothing is lost: the writes stay queued). A store without a replica only flushes.
    ///
    /// ```swift
    /// store.set(2, forKey: "volume")
    /// try await store.synchronize(timeout: .seconds(10))
    /// ```
    public func synchronize(timeout: Duration = .seconds(30)) async throws {
        try flush()
        try await synchronizing?.synchronize(timeout: timeout)
    }

    /// The backend that synchronizes, whether or not a read-only store wraps it.
    var synchronizing: (any SynchronizingBackend)? {
        (backend as? any SynchronizingBackend) ?? ((backend as? ReadOnlyBackend)?.base as? any SynchronizingBackend)
    }

    /// Starts telling Observation trackers of ``syncState`` when the backend's state changes.
    func listenForSyncState() {
        synchronizing?.observeSyncState { [weak self] in self?.syncStateSlot.markChanged() }
    }
}
