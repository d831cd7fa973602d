import StoredKit

extension StoreEvent {
    /// Whether this is ``StoreEvent/connectionLost(server:reason:)``: what a test of an outage waits for.
    ///
    /// ```swift
    /// await waitUntil { store.recentEvents.contains { $0.isConnectionLost } }
    /// ```
    public var isConnectionLost: Bool {
        if case .connectionLost = self { return true }
        return false
    }

    /// Whether this is ``StoreEvent/connectionRestored(server:)``: what a test waits for once the server is back.
    ///
    /// ```swift
    /// await waitUntil { store.recentEvents.contains { $0.isConnectionRestored } }
    /// ```
    public var isConnectionRestored: Bool {
        if case .connectionRestored = self { return true }
        return false
    }
}
