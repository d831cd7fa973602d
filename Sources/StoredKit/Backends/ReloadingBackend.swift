/// A backend that merges what others wrote on a queue of its own, where the store may load it
/// there and then: its observers hear the change without waiting for another thread to wake.
///
/// The store passes `reloadingNow` as well as the usual `onChange` when its backend is one of
/// these. The backend calls `reloadingNow` only where a reload may run (no lock of its own held,
/// nothing waiting on that queue that the store's load needs), and `onChange` everywhere else.
///
/// ```swift
/// try backend.startWatching({ print("schedule a reload") }, reloadingNow: { print("reload here") })
/// ```
package protocol ReloadingBackend: Backend {
    /// ``Backend/startWatching(_:)``, with `reloadingNow`, which loads the backend into the store
    /// and tells the store's observers on the calling thread before it returns.
    func startWatching(_ onChange: @escaping @Sendable () -> Void, reloadingNow: @escaping @Sendable () -> Void) throws
}
