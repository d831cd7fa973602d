import Foundation

/// Where a store that keeps a local replica of shared preferences stands with its server: what
/// it has not sent yet, when it last caught up, and whether it can reach the server now. An app
/// shows "not synced yet" from it; ``PreferenceStore/syncState`` is observable.
///
/// ```swift
/// if let state = store.syncState, state.pendingWrites > 0 {
///     print("offline — \(state.pendingWrites) changes not synced yet")
/// }
/// ```
public struct SyncState: Sendable, Equatable, CustomStringConvertible {
    /// How many keys hold a local write the server has not acknowledged.
    ///
    /// ```swift
    /// store.syncState?.pendingWrites  //=> 3
    /// ```
    public var pendingWrites: Int
    /// When this replica last finished a round with the server (its writes sent, the server's
    /// read), by this machine's clock; nil when it never has, as on a first open offline.
    ///
    /// ```swift
    /// store.syncState?.lastSynced  //=> nil
    /// ```
    public var lastSynced: Date?
    /// Whether the last attempt to reach the server succeeded.
    ///
    /// ```swift
    /// store.syncState?.isConnected  //=> false
    /// ```
    public var isConnected: Bool

    /// A state; stores make their own.
    ///
    /// ```swift
    /// SyncState(pendingWrites: 0, lastSynced: nil, isConnected: false)
    /// ```
    public init(pendingWrites: Int, lastSynced: Date?, isConnected: Bool) {
        self.pendingWrites = pendingWrites
        self.lastSynced = lastSynced
        self.isConnected = isConnected
    }

    /// One line, as a status bar shows it.
    ///
    /// ```swift
    /// SyncState(pendingWrites: 2, lastSynced: nil, isConnected: false).description
    /// //=> offline — 2 changes not synced yet (never synced)
    /// ```
    public var description: String {
        let connection = isConnected ? "online" : "offline"
        let pending =
            pendingWrites == 0
            ? "everything synced" : "\(pendingWrites) change\(pendingWrites == 1 ? "" : "s") not synced yet"
        let last = lastSynced.map { "last synced \($0.formatted(.iso8601))" } ?? "never synced"
        return "\(connection) — \(pending) (\(last))"
    }
}

/// A backend that keeps a local replica and synchronizes it with a server in the background:
/// ``PreferenceStore/syncState`` and ``PreferenceStore/synchronize(timeout:)`` reach it.
///
/// ```swift
/// let backend: any SynchronizingBackend = .postgres(url: url, namespace: "user:42", replica: file)
/// backend.syncState.pendingWrites  //=> 0
/// ```
public protocol SynchronizingBackend: Backend {
    /// The state now.
    var syncState: SyncState { get }

    /// Calls `onChange` (on any thread) each time ``syncState`` may have changed.
    func observeSyncState(_ onChange: @escaping @Sendable () -> Void)

    /// Returns once every write committed to the replica before the call is on the server and the
    /// replica has caught up with what the server held then; throws
    /// ``StoreError/notSynchronized(location:pendingWrites:reason:)`` after `timeout`.
    func synchronize(timeout: Duration) async throws
}
