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
    /// on the calling thread and delivers what changed there too, unless another thread is
    /// delivering already (that one then delivers it). While it delivers, changes the app makes
    /// meanwhile are delivered by the same thread.
    func startWatching(_ onChange: @escaping @Sendable () -> Void, reloadingNow: @escaping @Sendable () -> Void) throws
}
