import Foundation
import StoredKitTestSupport
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// The relay the offline-replica tests put between a client and the server
/// (``SilentServerProxy/cut()`` and ``SilentServerProxy/heal()``): a cut makes the server
/// unreachable at once, for open connections and new ones alike, which `silence()` (a frozen
/// server) does not; a heal lets new connections through again.
@Suite(
    "A relay cut between the stores and the PostgreSQL server",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresRelayCutTests {
    /// Far beyond the test's run: a failure that waited for it would say "did not answer" or
    /// "timeout expired", so an error of another kind shows the cut was seen at once. (At most
    /// 127 s: the connection's keepalive count is its timeout in seconds, and Linux caps it there.)
    static let longTimeout = Duration.seconds(120)

    @Test func aCutFailsTheOpenConnectionAndRefusesNewOnesUntilTheHeal() throws {
        let proxy = try SilentServerProxy(to: try PostgresTestServer.requireURL())
        defer { proxy.stop() }
        let address = try PostgresAddress(proxy.url)
        let connection = try PostgresConnection(address: address, timeout: Self.longTimeout)
        #expect(try connection.query("SELECT 1") == [["1"]])

        try proxy.cut()
        let started = ContinuousClock.now
        let queryError = try #require(throws: StoreError.self) { try connection.query("SELECT 2") }
        #expect(!connection.isAlive)
        let refusal = try #require(throws: StoreError.self) {
            try PostgresConnection(address: address, timeout: Self.longTimeout)
        }
        let failedAfter = ContinuousClock.now - started
        for error in [queryError, refusal] {
            guard case .postgres(_, let code, let message) = error else {
                Issue.record("expected a PostgreSQL error, got \(error)")
                continue
            }
            #expect(code == "08006" || code == "08001", "\(error)")
            #expect(!Self.isTimeout(message), "the failure waited for a timeout instead of seeing the cut: \(message)")
        }

        try proxy.heal()
        let fresh = try PostgresConnection(address: address, timeout: Self.longTimeout)
        #expect(try fresh.query("SELECT 3") == [["3"]])
        print("Relay cut: a query and a new connection failed \(failedAfter) after the cut (timeout \(Self.longTimeout))")
    }

    @Test func aStoreReportsTheCutAndTheHealAndItsPendingWriteLandsAfterTheHeal() async throws {
        let direct = try PostgresTestServer.requireURL()
        let proxy = try SilentServerProxy(to: direct)
        defer { proxy.stop() }
        let namespace = PostgresTestServer.freshNamespace("relay-cut")
        let store = try PreferenceStore(.postgres(url: proxy.url, namespace: namespace))
        store.set(1, forKey: "a")
        try store.flush()
        // Cut a live listener, not one still connecting: its loss is the event under test.
        try PostgresServer.shared(for: PostgresAddress(proxy.url)).listener.waitUntilLive(timeout: .seconds(60))
        #expect(!store.recentEvents.contains { $0.isConnectionLost })

        try proxy.cut()
        #expect(await waitUntil { store.recentEvents.contains { $0.isConnectionLost } }, "no connectionLost event")
        store.set(2, forKey: "a")
        #expect(throws: StoreError.self, "a flush while the server is unreachable fails") { try store.flush() }
        #expect(!store.recentEvents.contains { $0.isConnectionRestored }, "restored while still cut")

        try proxy.heal()
        #expect(await waitUntil { store.recentEvents.contains { $0.isConnectionRestored } }, "no connectionRestored event")
        // Nobody flushes: the store retries its pending write once the connection is back.
        let landed = await waitUntil {
            let reopened = try? PreferenceStore(.postgres(url: direct, namespace: namespace))
            return reopened?.value(forKey: "a", as: Int.self) == 2
        }
        #expect(landed, "the write made while cut did not land after the heal")
    }

    /// Whether `message` is one of PostgresConnection's timeouts (a command's or a connection attempt's).
    static func isTimeout(_ message: String) -> Bool {
        message.contains("did not answer within") || message.contains("timeout expired")
    }
}
