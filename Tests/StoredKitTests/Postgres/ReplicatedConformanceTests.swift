import Foundation
import StoredKitConformance
import StoredKitTestSupport
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// The conformance suite on the offline replica (issue 39, test 11): each check on a fresh
/// namespace of the test server and a fresh replica file in a temporary directory, every backend
/// instance of the check over that one file, as the launches of one app on one machine are.
@Suite(
    "The replicated PostgreSQL backend passes the conformance suite",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct ReplicatedConformanceTests {
    @Test(arguments: BackendConformance.checks)
    func conforms(_ check: BackendConformance.Check) async throws {
        let subject = try ReplicatedSubject(url: try PostgresTestServer.requireURL())
        try await check.run(on: subject)
    }

    /// Only the corruption checks are skipped: their quarantine check expects the store to open
    /// empty and hold only what is written next, but a quarantined replica fills again from the
    /// server, which holds what the damaged file had sent. The test below checks that instead.
    @Test func onlyTheCorruptionChecksAreSkipped() throws {
        let subject = try ReplicatedSubject(url: "postgresql://unused")
        let skipped = BackendConformance.checks.filter { !$0.applies(to: subject.capabilities) }
        #expect(skipped.count == 2)
        #expect(skipped.allSatisfy { $0.requires.contains(.detectsCorruption) })
    }

    /// A damaged replica is moved aside and reported, the store opens empty and writes, and the
    /// values the server had come back; with the fail policy the open fails, twice.
    @Test func aDamagedReplicaIsQuarantinedAndFilledAgainFromTheServer() async throws {
        let subject = try ReplicatedSubject(url: try PostgresTestServer.requireURL())
        do {
            let store = try PreferenceStore(try subject.openBackend(), durability: .immediate)
            store.set("sent", forKey: "kept")
            try await store.synchronize(timeout: .seconds(10))
        }
        try subject.damage()
        for _ in 0..<2 {
            #expect {
                _ = try PreferenceStore(try subject.openBackend(corruption: .fail))
            } throws: { error in
                guard case StoreError.corruptFile = error else { return false }
                return true
            }
        }
        let store = try PreferenceStore(try subject.openBackend(corruption: .quarantine), durability: .immediate)
        #expect(store.recentEvents.contains { if case .quarantined = $0 { true } else { false } })
        store.set("after", forKey: "fresh")
        try await store.synchronize(timeout: .seconds(10))
        try await eventually { store.value(forKey: "kept", as: String.self) == "sent" }
        #expect(store.value(forKey: "fresh", as: String.self) == "after")
    }
}

/// One namespace of the test server and one replica file of it; every backend opened over it is
/// a new ``ReplicatedBackend`` on that file, so instances share the data through the file (and
/// each syncs it with the server in the background).
struct ReplicatedSubject: ConformanceSubject {
    let url: String
    let namespace = PostgresTestServer.freshNamespace("replicated-conformance")
    let directory: TemporaryDirectory

    init(url: String) throws {
        self.url = url
        directory = try TemporaryDirectory()
    }

    var file: URL { directory.file("prefs.replica") }

    /// No ``BackendCapabilities/detectsCorruption``: see ``ReplicatedConformanceTests/onlyTheCorruptionChecksAreSkipped()``.
    var capabilities: BackendCapabilities { [.persistent, .sharedBetweenInstances, .subSecondDates] }

    func openBackend(corruption: CorruptionPolicy) throws -> any Backend {
        ReplicatedBackend(
            url: url, namespace: namespace, replica: ReplicaFile(at: file, corruption: corruption), replicaURL: file,
            timeout: .seconds(5), maximumClockSkew: .seconds(60))
    }

    /// For the replica's own corruption test. Overwrites the start of the replica file, where SQLite keeps its header, once nothing in
    /// this process has it open: a released backend's syncer finishes the round it is in before
    /// it lets the file go, and its close would checkpoint the write-ahead log over the damage.
    /// Data damaged at rest, as a failing disk finds it while the app is not running.
    func damage() throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try isOpenHere(), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        guard try !isOpenHere() else { throw ConformanceFailure("the replica '\(file.path)' stayed open for 10 s") }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 512))
    }

    /// Whether a descriptor of this process refers to the replica or its write-ahead log.
    private func isOpenHere() throws -> Bool {
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        let names = [file.path, file.path + "-wal"]
        return descriptors.contains { descriptor in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
            return target.map(names.contains) ?? false
        }
    }
}
