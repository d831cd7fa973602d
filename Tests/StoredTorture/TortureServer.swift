import Foundation
import StoredKitTestSupport
import Synchronization

/// The PostgreSQL server the PostgreSQL scenarios run against: the one `--postgres URL` (or
/// `STOREDKIT_POSTGRES_URL`) names, or else a throwaway one started with
/// Scripts/postgres-test-server.sh (durable settings) and stopped on release. Only a server of
/// its own can be restarted. A server of its own is also stopped when the tool exits first
/// (SIGINT, SIGTERM, a scenario's `exit`: ``endWithTheTool()``).
///
/// ```swift
/// let server = try TortureServer(url: nil)  // says "started a throwaway PostgreSQL server at …"
/// try server.crashAndRestart()
/// ```
final class TortureServer {
    let url: String
    /// The server this tool started; nil for a given one.
    private let own: ThrowawayPostgresServer?

    init(url given: String?) throws {
        if let given {
            url = given
            own = nil
            return
        }
        let own = try ThrowawayPostgresServer(label: "stored-torture-pg")
        url = own.url
        self.own = own
        Self.running.withLock { $0[own.url] = own }
        complain("started a throwaway PostgreSQL server at \(url) (fsync on)")
    }

    /// A server restart as a power cut does it: `pg_ctl restart -m immediate` (crash recovery at start).
    func crashAndRestart() throws {
        guard let own else { throw TortureError("server-restart needs a server of its own: run it without --postgres") }
        try own.crashAndRestart()
    }

    deinit {
        guard let own else { return }
        _ = Self.running.withLock { $0.removeValue(forKey: own.url) }
        own.stop()
    }

    /// The servers of its own not stopped yet, by URL.
    private static let running = Mutex<[String: ThrowawayPostgresServer]>([:])

    /// At exit (``endWithTheTool()``): stops every server of its own still running.
    static func stopAllRunning() {
        let left = running.withLock { running in
            defer { running = [:] }
            return Array(running.values)
        }
        left.forEach { $0.stop() }
    }
}
