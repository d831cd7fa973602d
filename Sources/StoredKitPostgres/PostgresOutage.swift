import Foundation
import StoredKit
import Synchronization

/// Whether a server is known to be unreachable, shared by its pool and its listener, so that
/// while it is down a flush fails at once instead of waiting out a timeout per namespace (the
/// exit flush of 10,000 namespaces waits once, not 10,000 times).
///
/// The listener's word holds until it reconnects. The pool's (a connection it could not open)
/// holds for one timeout, then the next command tries again: the listener may not know yet.
///
/// ```swift
/// outage.begin(reason: "connection refused", byListener: true)
/// outage.current(lapse: .seconds(5))?.reason  //=> "connection refused"
/// outage.end()
/// ```
final class PostgresOutage: Sendable {
    struct Record {
        var reason: String
        /// When it started, for messages.
        var since: Date
        var byListener: Bool
        var noticed: ContinuousClock.Instant
    }

    private let record = Mutex<Record?>(nil)

    /// Records that the server could not be reached; an outage already known keeps its start.
    func begin(reason: String, byListener: Bool) {
        record.withLock { record in
            let since = record?.since ?? Date()
            record = Record(
                reason: reason, since: since, byListener: byListener || record?.byListener == true,
                noticed: .now)
        }
    }

    /// The server answered again.
    func end() {
        record.withLock { $0 = nil }
    }

    /// The outage in force: the listener's until it reconnects, the pool's for `lapse` after it was noticed.
    func current(lapse: Duration) -> Record? {
        record.withLock { record in
            guard let known = record else { return nil }
            if known.byListener || ContinuousClock.now - known.noticed < lapse { return known }
            return nil
        }
    }

    /// The error a command gets while `server` is known to be down: it names the server and says
    /// what happens to the writes.
    static func error(_ record: Record, server: String) -> StoreError {
        let since = ISO8601DateFormatter.string(from: record.since, timeZone: .gmt, formatOptions: [.withInternetDateTime])
        return StoreError.postgres(
            server: server, code: "08006",
            message: "the server has been unreachable since \(since) (\(record.reason)); "
                + "writes made with set stay pending and are committed when it is back, so flush again then")
    }
}
