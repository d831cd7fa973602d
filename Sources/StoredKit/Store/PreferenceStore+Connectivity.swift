import Dispatch

/// What a store does with its backend's signals (``Backend/startSignalling(_:)``): events are
/// reported; "storage is back" commits the pending writes at once and catches up.
///
/// While a server is unreachable, reads serve the last snapshot and deferred writes stay pending
/// (a failed flush keeps them). When it is back the pending writes are committed as one batch,
/// merged per key, so the last committer wins: a machine that was offline for long overwrites
/// newer values of the keys it wrote meanwhile when it returns. Every other key is read as
/// others left it, and observers are told with origin `.external`.
extension PreferenceStore {
    /// Starts taking the backend's signals; the backend holds the store weakly.
    func listenForSignals() {
        listenForSyncState()
        backend.startSignalling { [weak self] signal in
            guard let self else { return }
            switch signal {
            case .event(let event):
                report(event)
            case .retryPending:
                // Off the backend's thread: a commit waits for the backend lock and the server.
                DispatchQueue.global().async { [weak self] in self?.retryPending() }
            }
        }
    }

    /// Reads what others changed while the storage was away (keys written here meanwhile keep
    /// the local value), then commits what is pending. A failure is reported by each step, and
    /// the writes stay pending for the next signal or flush.
    func retryPending() {
        reloadFromBackend()
        try? flush()
    }
}
