import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// libpq's own parameters pass through the URL: a `lock_timeout` set there ends an `update` that
/// waits for a namespace another session holds with a typed error, and the data stays as it was.
@Suite(
    "PostgreSQL lock timeouts are typed errors",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresLockTimeoutTests {
    @Test func anUpdateWaitingPastTheLockTimeoutFailsWithItsCode() throws {
        let base = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("locked")
        let store = try PreferenceStore(
            .postgres(url: base + "?options=-c%20lock_timeout%3D200&application_name=lock_test", namespace: namespace))
        store.set(1, forKey: "count")
        try store.flush()
        let holder = try PostgresConnection(address: PostgresAddress(base))
        try holder.run("BEGIN")
        try holder.query(PostgresSchema.lockNamespace, [namespace])
        let key = StoredKey<Int>("count", default: 0)
        let error = try #require(throws: StoreError.self) { try store.update(key) { $0 += 1 } }
        try holder.run("ROLLBACK")
        guard case .postgres(_, let code, _) = error else {
            Issue.record("expected a PostgreSQL error, got \(error)")
            return
        }
        #expect(code == "55P03")
        #expect(error.description.contains("try again"), "\(error)")
        try store.update(key) { $0 += 1 }
        #expect(store[key] == 2)
    }
}
