import StoredKit

/// What a replica's rounds with its server did, key by key, since the report was started or
/// last taken (``ReplicatedBackend/startSyncReport()``, ``ReplicatedBackend/takeSyncReport()``):
/// the local writes sent and what became of each, the server's writes the replica took, and why
/// the last failed round failed. `stored sync` prints it; an app does not keep one (nothing is
/// gathered until a report is started, so a long-running process holds no copy of its namespace).
///
/// ```swift
/// let backend = ReplicatedBackend(url: url, namespace: "user:42", replica: file)
/// backend.startSyncReport()
/// let store = try PreferenceStore(backend)
/// try await store.synchronize(timeout: .seconds(30))
/// backend.takeSyncReport().sent["volume"]?.outcome  //=> .applied
/// ```
package struct SyncReport: Sendable {
    /// What became of one local write the replica sent.
    package enum Outcome: Sendable, Equatable {
        /// The server recorded it (or had already: an upload repeated after a crash is a no-op).
        case applied
        /// The server recorded it with this earlier stamp: this machine's clock ran too far ahead.
        case clamped(HybridTimestamp)
        /// A write made later elsewhere holds the key; the replica took that one.
        case lost
        /// The server refused it, for `reason`; the key went back to what the server holds.
        case refused(reason: String)
        /// The write of a migration another replica ran on the namespace first: not sent, the key
        /// took the server's (migrated) value.
        case superseded
        /// The server did not apply it (it holds a later write, or this one already), and the
        /// round ended before the catch-up said which.
        case notApplied
    }

    /// One local write sent: the value (nil: a removal), its stamp, and its outcome.
    package struct Upload: Sendable, Equatable {
        package var key: String
        package var value: StoredValue?
        package var stamp: HybridTimestamp
        package var outcome: Outcome
    }

    /// The local writes sent, by key: each key's last upload.
    package var sent: [String: Upload] = [:]
    /// The keys whose pending local write lost, before it was sent, to a later write the replica
    /// took from the server (its winner is in ``received``).
    package var lostUnsent: Set<String> = []
    /// What the replica took from the server, by key (nil: removed), the last for each key.
    package var received: [String: StoredValue?] = [:]
    /// Rounds begun, and finished without an error.
    package var rounds = 0
    package var roundsSucceeded = 0
    /// Why the last round failed, if the last round failed; nil once one succeeds.
    package var lastFailure: (any Error)?

    package init() {}
}
