import Foundation
import Synchronization
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// Connections cut with `pg_terminate_backend` (a restarted PgBouncer, an administrator, a
/// failover): the pool opens a fresh one, and the listener reconnects and catches up.
@Suite(
    "PostgreSQL connections cut under the stores",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresConnectionLossTests {
    @Test func aWriteAfterItsPooledConnectionWasKilledSucceeds() throws {
        let (url, name) = try Self.ownPool()
        let namespace = PostgresTestServer.freshNamespace("killed")
        let store = try PreferenceStore(.postgres(url: url, namespace: namespace))
        store.set(1, forKey: "a")
        try store.flush()
        try Self.terminateConnections(named: name)
        store.set(2, forKey: "a")
        try store.flush()
        let reopened = try PreferenceStore(.postgres(url: try PostgresTestServer.requireURL(), namespace: namespace))
        #expect(reopened.value(forKey: "a", as: Int.self) == 2)
    }

    @Test func anObserverWhoseListenerWasKilledStillSeesOtherWrites() async throws {
        let (url, name) = try Self.ownPool()
        let namespace = PostgresTestServer.freshNamespace("relisten")
        let store = try PreferenceStore(.postgres(url: url, namespace: namespace))
        let seen = Mutex<[Change]>([])
        let token = store.observe("n") { change in seen.withLock { $0.append(change) } }
        try Self.terminateConnections(named: name)
        let other = try PreferenceStore(.postgres(url: try PostgresTestServer.requireURL(), namespace: namespace))
        other.set(7, forKey: "n")
        try other.flush()
        #expect(await waitUntil { seen.withLock { $0.last?.newValue == .int(7) && $0.last?.origin == .external } })
        withExtendedLifetime(token) {}
    }

    @Test func watchingStartsAfterItsPooledConnectionWasKilled() throws {
        let (url, name) = try Self.ownPool()
        let backend = PostgresBackend.postgres(url: url, namespace: PostgresTestServer.freshNamespace("rewatch"))
        _ = try backend.load()
        try Self.terminateConnections(named: name)
        // Its look at the namespace after LISTEN runs on the pool's dead connection: a fresh one, not an error.
        try backend.startWatching {}
        backend.stopWatching()
    }

    /// The test server's URL with an application_name of its own: its own pool, and a name to find its connections by.
    static func ownPool() throws -> (url: String, name: String) {
        let name = "cut_\(UUID().uuidString.prefix(8))"
        return (try PostgresTestServer.requireURL() + "?application_name=\(name)", name)
    }

    static func terminateConnections(named name: String) throws {
        let connection = try PostgresConnection(address: PostgresAddress(try PostgresTestServer.requireURL()))
        let killed = try connection.query(
            "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE application_name = $1", [name])
        #expect(killed.first?.first != "0", "there were connections to cut")
    }
}
