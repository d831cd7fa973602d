import Foundation
import Synchronization
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// The process's one listener thread serves every namespace: a namespace whose commit waits (for
/// a row lock someone holds, for a slow server) must not hold up the notifications of the others.
@Suite(
    "A busy PostgreSQL namespace holds up no other",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresBusyNamespaceTests {
    @Test func anotherNamespaceHearsOfWritesWhileOneWaitsForALock() async throws {
        let url = try PostgresTestServer.requireURL()
        let name = "busy_\(UUID().uuidString.prefix(8))"
        let pooled = url + "?application_name=\(name)"
        let busyNamespace = PostgresTestServer.freshNamespace("busy")
        let quietNamespace = PostgresTestServer.freshNamespace("quiet")
        let busy = try PreferenceStore(.postgres(url: pooled, namespace: busyNamespace, timeout: .seconds(60)))
        let quiet = try PreferenceStore(.postgres(url: pooled, namespace: quietNamespace))
        busy.set(1, forKey: "a")
        try busy.flush()
        let seen = Mutex<[Change]>([])
        let token = quiet.observe("b") { change in seen.withLock { $0.append(change) } }

        // Someone holds the busy namespace's row: its next commit waits, holding the backend.
        let holder = try PostgresConnection(address: PostgresAddress(url))
        try holder.run("BEGIN")
        try holder.query("SELECT revision FROM storedkit.namespaces WHERE namespace = $1 FOR UPDATE", [busyNamespace])
        busy.set(2, forKey: "a")
        let admin = try PostgresConnection(address: PostgresAddress(url))
        let waiting = try await waitUntil {
            let rows = try admin.query(
                "SELECT count(*) > 0 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [name])
            // More than one when the first try outlived its command timeout and a retry waits too.
            return rows.first?.first == "t"
        }
        #expect(waiting, "the busy store's commit never waited for the lock: \(busy.recentEvents)")
        // A notification for the busy namespace reaches the listener first, then a write to the quiet one.
        try admin.query(
            "SELECT pg_notify($1, '999999 ' || notify_token) FROM storedkit.namespaces WHERE namespace = $2",
            [PostgresSchema.channel, busyNamespace])
        let other = try PreferenceStore(.postgres(url: url, namespace: quietNamespace))
        other.set("meanwhile", forKey: "b")
        try other.flush()
        #expect(await waitUntil { seen.withLock { $0.contains { $0.newValue == .string("meanwhile") } } })

        try holder.run("ROLLBACK")
        let landed = await waitUntil {
            (try? PreferenceStore(.postgres(url: url, namespace: busyNamespace)))?.value(forKey: "a", as: Int.self) == 2
        }
        #expect(landed, "the busy store's write did not land once the lock was released")
        withExtendedLifetime(token) {}
    }
}
