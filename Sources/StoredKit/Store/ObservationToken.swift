import Synchronization

/// Keeps an observation alive. Observation stops when the token is released or cancelled.
///
/// Keep the token as long as you want changes; the compiler warns when a token is dropped,
/// because a dropped token means the observer stops at once (peers' users lost
/// notifications silently that way).
///
/// ```swift
/// let token = store.observe(.volume) { change in print(change.newValue) }
/// // ... later
/// token.cancel()
/// ```
public final class ObservationToken: Sendable, Hashable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
    }

    /// Stops the observation; calling it again does nothing.
    ///
    /// ```swift
    /// token.cancel()
    /// ```
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit {
        cancel()
    }

    /// Tokens are equal only to themselves.
    ///
    /// ```swift
    /// var tokens: Set<ObservationToken> = [token]
    /// ```
    public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool { lhs === rhs }

    /// Hashes the token's identity.
    ///
    /// ```swift
    /// var tokens: Set<ObservationToken> = [token]
    /// ```
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
