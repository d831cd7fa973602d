/// What a backend tells its store between calls (see ``Backend/startSignalling(_:)``): something
/// to report, or that storage it could not reach is back.
///
/// ```swift
/// signal(.event(.connectionLost(server: "postgresql://app@db/prefs", reason: "server closed the connection")))
/// signal(.event(.connectionRestored(server: "postgresql://app@db/prefs")))
/// signal(.retryPending)  // the store commits its pending writes now and reads what others changed
/// ```
public enum BackendSignal: Sendable {
    /// Reported on the store's ``PreferenceStore/diagnostics`` and ``PreferenceStore/recentEvents``.
    ///
    /// ```swift
    /// BackendSignal.event(.serverNotice(server: "postgresql://db/prefs", message: "WARNING: disk almost full"))
    /// ```
    case event(StoreEvent)
    /// The storage is reachable again: the store commits every pending write at once (merged per
    /// key, so the last committer wins) and reads what others changed meanwhile, telling its observers.
    ///
    /// ```swift
    /// BackendSignal.retryPending
    /// ```
    case retryPending
}
