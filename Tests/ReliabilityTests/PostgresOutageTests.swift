import Foundation
import StoredKit
import StoredKitPostgres
import StoredKitTestSupport
import Synchronization
import Testing

/// The server goes down (`pg_ctl stop -m immediate`) and stays down for a while, then comes back,
/// under a writer in this process and an observer in another. The test has a server of its own.
@Suite(
    "A PostgreSQL server down for a while under running stores", .serialized,
    .enabled(if: PostgresURLs.isEnabled, PostgresURLs.skipMessage))
struct PostgresOutageTests {
    @Test func writesMadeWhileTheServerIsDownLandWhenItIsBackAndReachAnotherProcess() async throws {
        _ = try PostgresURLs.require()
        let server = try ThrowawayPostgresServer(label: "storedkit-pg")
        defer { server.stop() }
        let writer = try PreferenceStore(.postgres(url: server.url, namespace: "outage"))
        writer.set(0, forKey: "k0")
        try writer.flush()
        let observer = try HelperProcess(
            ["observe-keys", server.url + "?application_name=observer", "k1,k2,k3", "3"],
            environment: ["STORED_NAMESPACE": "outage"])
        #expect(await observer.waitForLine { $0 == "ready" })

        try server.halt()
        #expect(await Self.eventually { writer.recentEvents.contains { $0.isConnectionLost } }, "no connectionLost event")
        writer.set(1, forKey: "k1")
        writer.set(2, forKey: "k2")
        writer.set(3, forKey: "k3")
        writer.set(11, forKey: "k1")  // pending writes merge per key: the last one lands
        #expect(writer.value(forKey: "k0", as: Int.self) == 0, "reads serve the last snapshot")
        #expect(writer.value(forKey: "k1", as: Int.self) == 11)

        // While the server is known to be down, a flush and an update fail at once, naming it.
        let started = ContinuousClock.now
        let error = try #require(throws: StoreError.self) { try writer.flush() }
        let failedAfter = ContinuousClock.now - started
        guard case .postgres(let name, _, let message) = error else {
            Issue.record("expected a PostgreSQL error, got \(error)")
            return
        }
        #expect(server.url.contains(name.replacingOccurrences(of: "postgresql://", with: "")))
        #expect(message.contains("unreachable") && message.contains("pending"), "\(message)")
        #expect(error.description.contains("Check that the server is running"))
        #expect(throws: StoreError.self) { try writer.update(StoredKey<Int>("counter", default: 0)) { $0 += 1 } }
        // A store opened while the server is down fails its open, naming the server.
        let openError = try #require(throws: StoreError.self) {
            try PreferenceStore(.postgres(url: server.url, namespace: "opened-while-down"))
        }
        #expect(openError.description.contains("127.0.0.1"), "\(openError)")

        try server.resume()
        let resumed = ContinuousClock.now
        #expect(await Self.eventually { writer.recentEvents.contains { $0.isConnectionRestored } }, "no connectionRestored event")
        // Nobody flushes: the store retries its pending writes when the connection is back.
        #expect(
            await observer.exitStatus(timeout: .seconds(300)) == 0, "the observer did not see every change: \(observer.lines)")
        let landedAfter = ContinuousClock.now - resumed
        #expect(observer.lines.contains("k1=11 external"))
        #expect(observer.lines.contains("k2=2 external"))
        #expect(observer.lines.contains("k3=3 external"))
        let reopened = try PreferenceStore(.postgres(url: server.url + "?application_name=check", namespace: "outage"))
        #expect(reopened.dictionaryRepresentation() == ["k0": .int(0), "k1": .int(11), "k2": .int(2), "k3": .int(3)])
        print("PostgreSQL outage: flush failed after \(failedAfter) while down;", terminator: " ")
        print("writes reached another process \(landedAfter) after the server was back")
    }

    @Test func anObserverElsewhereGetsEveryChangeMadeWhileItsServerWasDown() async throws {
        _ = try PostgresURLs.require()
        let server = try ThrowawayPostgresServer(label: "storedkit-pg")
        defer { server.stop() }
        let observer = try PreferenceStore(.postgres(url: server.url + "?application_name=observer", namespace: "away"))
        let seen = ChangeLog()
        let token = observer.observe("a") { seen.append($0) }
        let token2 = observer.observe("b") { seen.append($0) }
        try server.halt()
        #expect(await Self.eventually { observer.recentEvents.contains { $0.isConnectionLost } })
        try server.resume()
        // Another machine writes as soon as the server is back, whether this observer's listener is back yet or not.
        let writer = try Self.openWhenUp(server.url, namespace: "away")
        writer.set("one", forKey: "a")
        writer.set("two", forKey: "b")
        try writer.flush()
        #expect(
            await seen.wait { changes in Set(changes.map(\.key)) == ["a", "b"] && changes.allSatisfy { $0.origin == .external } })
        #expect(await Self.eventually { observer.recentEvents.contains { $0.isConnectionRestored } })
        #expect(observer.value(forKey: "a", as: String.self) == "one")
        withExtendedLifetime((token, token2)) {}
    }

    /// Opens a store, retrying while the server finishes starting.
    static func openWhenUp(_ url: String, namespace: String) throws -> PreferenceStore {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                return try PreferenceStore(.postgres(url: url, namespace: namespace))
            } catch  where ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
