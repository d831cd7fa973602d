import Foundation
import StoredKit
import StoredKitPostgres
import StoredKitTestSupport
import Testing

/// The server crashes (`pg_ctl restart -m immediate`) while a writer and an observer on another
/// pool (another machine, as far as the server can tell) run. The test has a server of its own.
@Suite(
    "A PostgreSQL server crashing under running stores", .serialized,
    .enabled(if: PostgresURLs.isEnabled, PostgresURLs.skipMessage))
struct PostgresRestartTests {
    @Test func noAcknowledgedWriteIsLostAndTheObserverCatchesUp() async throws {
        _ = try PostgresURLs.require()
        let server = try ThrowawayPostgresServer(label: "storedkit-pg")
        defer { server.stop() }
        let writer = try PreferenceStore(.postgres(url: server.url, namespace: "restart"))
        let reader = try PreferenceStore(.postgres(url: server.url + "?application_name=reader", namespace: "restart"))
        let seen = ChangeLog()
        let token = reader.observe("n") { seen.append($0) }
        for value in 1...20 {
            writer.set(value, forKey: "n")
            try writer.flush()
        }
        #expect(await seen.wait { $0.last?.newValue == .int(20) })
        try server.crashAndRestart()
        for value in 21...40 {
            writer.set(value, forKey: "n")
            #expect(await flushEventually(writer), "value \(value) was never acknowledged")
        }
        #expect(await seen.wait { $0.last?.newValue == .int(40) && $0.last?.origin == .external })
        let reopened = try PreferenceStore(.postgres(url: server.url + "?application_name=check", namespace: "restart"))
        #expect(reopened.value(forKey: "n", as: Int.self) == 40)
        withExtendedLifetime(token) {}
    }

    /// Flushes until the server takes the pending writes (it may still be recovering).
    private func flushEventually(_ store: PreferenceStore) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if (try? store.flush()) != nil { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
