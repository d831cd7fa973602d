/// When a write reaches the disk.
///
/// ```swift
/// let store = try PreferenceStore(.sqlite(at: url), durability: .immediate)
/// store.set(1, forKey: "a")  // on disk (fsynced) when this returns
/// ```
public enum Durability: Sendable, Hashable {
    /// Writes are coalesced and committed in one batch shortly after, on `flush()`,
    /// when the store is released and at normal process exit. Like UserDefaults, but it
    /// actually saves.
    case deferred
    /// Every write is committed and synced before the call returns.
    case immediate
}
