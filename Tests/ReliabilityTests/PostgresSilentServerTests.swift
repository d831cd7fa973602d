import Foundation
import StoredKit
import StoredKitPostgres
import StoredKitTestSupport
import Testing

/// The server goes silent (frozen, or cut off by the network: connections stay open and nothing
/// is answered), which a refused connection does not show: commands must give up after the
/// backend's timeout, the first failure must make every other namespace fail at once, and the
/// pending writes must land when the server answers again. A proxy in front of the test server
/// (Scripts/silent-server-proxy.py) does the silencing.
@Suite(
    "A PostgreSQL server that stops answering", .serialized,
    .enabled(if: PostgresURLs.isEnabled, PostgresURLs.skipMessage))
struct PostgresSilentServerTests {
    @Test func aFlushGivesUpAfterTheTimeoutOtherNamespacesFailAtOnceAndTheWritesLandLater() async throws {
        let (tcp, _) = try PostgresURLs.require()
        let proxy = try SilentServerProxy(to: tcp)
        defer { proxy.stop() }
        let namespace = "silent-\(UUID().uuidString)"
        let store = try PreferenceStore(.postgres(url: proxy.url, namespace: namespace, timeout: .seconds(2)))
        let other = try PreferenceStore(.postgres(url: proxy.url, namespace: namespace + "-other", timeout: .seconds(2)))
        store.set(1, forKey: "a")
        try store.flush()

        try proxy.silence()
        store.set(2, forKey: "a")
        let started = ContinuousClock.now
        let error = try #require(throws: StoreError.self) { try store.flush() }
        let gaveUpAfter = ContinuousClock.now - started
        guard case .postgres(let server, let code, _) = error else {
            Issue.record("expected a PostgreSQL error, got \(error)")
            return
        }
        #expect(proxy.url.contains(server.replacingOccurrences(of: "postgresql://", with: "")), "\(server)")
        #expect(code == "08006" || code == "08001", "\(error)")
        other.set(5, forKey: "b")
        let otherError = try #require(throws: StoreError.self) { try other.flush() }
        #expect(otherError.description.contains("unreachable since"), "\(otherError)")
        #expect(store.value(forKey: "a", as: Int.self) == 2, "reads serve the last snapshot")

        try proxy.speak()
        #expect(await PostgresOutageTests.eventually { store.recentEvents.contains { $0.isConnectionRestored } })
        // Nobody flushes: both stores retry when the connection is back.
        let landed = await PostgresOutageTests.eventually {
            let direct = try? PreferenceStore(.postgres(url: tcp, namespace: namespace))
            let directOther = try? PreferenceStore(.postgres(url: tcp, namespace: namespace + "-other"))
            return direct?.value(forKey: "a", as: Int.self) == 2 && directOther?.value(forKey: "b", as: Int.self) == 5
        }
        #expect(landed, "the pending writes did not land")
        print("PostgreSQL silent server: a flush gave up after \(gaveUpAfter) (timeout 2 s)")
    }

    @Test func theExitFlushOfManyNamespacesWaitsForASilentServerOnce() async throws {
        let (tcp, _) = try PostgresURLs.require()
        let proxy = try SilentServerProxy(to: tcp)
        defer { proxy.stop() }
        let folder = try TemporaryDirectory()
        let count = 40
        let helper = try HelperProcess(
            ["set-many-and-exit", proxy.url, "\(count)", folder.url.path],
            environment: ["STORED_NAMESPACE": "exit-\(UUID().uuidString)", "STORED_TIMEOUT": "2"])
        #expect(await helper.waitForLine { $0 == "open" })
        try proxy.silence()
        let started = ContinuousClock.now
        try Data().write(to: folder.file("go"))
        #expect(await helper.exitStatus() == 0)
        let exitedAfter = ContinuousClock.now - started
        let report = try #require(helper.lines.last { $0.hasPrefix("waited=") })
        let numbers = report.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        try #require(numbers.count == 2, "\(report)")
        // At most one wait per pooled connection (4), never one per namespace; the rest are told at once.
        #expect(numbers[0] <= 4, "\(report)")
        #expect(numbers[0] + numbers[1] >= count, "every namespace's write failed and was reported: \(report)")
        // What the exiting process timed of its own exit sequence (ExitSequence.timings), printed beside
        // the test's clock, which also counts the test's threads going unscheduled and the wait for the
        // child's pipe to close. The bound itself is the sequence's deadlines (flushDeadline,
        // stragglerDeadline), not a figure to hold a machine to here.
        let phases = try #require(helper.lines.last { $0.hasPrefix("exit flushMs=") }, "\(helper.lines)")
        print(
            "PostgreSQL silent server: the exit flush of \(count) namespaces took \(exitedAfter) by the test's clock, "
                + "\(phases) by the child's (timeout 2 s; \(report))")
    }
}
