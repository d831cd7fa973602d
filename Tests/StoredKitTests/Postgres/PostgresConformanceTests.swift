import Foundation
import StoredKit
import StoredKitConformance
import StoredKitPostgres
import Testing

/// The conformance suite on PostgreSQL, each check in a fresh namespace of the test server.
@Suite(
    "The PostgreSQL backend passes the conformance suite",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresConformanceTests {
    @Test(arguments: BackendConformance.checks)
    func conforms(_ check: BackendConformance.Check) async throws {
        let subject = PostgresSubject(url: try PostgresTestServer.requireURL())
        try await check.run(on: subject)
    }

    /// Only the corruption checks are skipped: a server has no file to damage.
    @Test func onlyTheCorruptionChecksAreSkipped() {
        let subject = PostgresSubject(url: "postgresql://unused")
        let skipped = BackendConformance.checks.filter { !$0.applies(to: subject.capabilities) }
        #expect(skipped.count == 2)
        #expect(skipped.allSatisfy { $0.requires.contains(.detectsCorruption) })
    }
}

/// One namespace of the test server; every backend opened over it shares the data.
struct PostgresSubject: ConformanceSubject {
    let url: String
    let namespace = PostgresTestServer.freshNamespace("conformance")

    var capabilities: BackendCapabilities { [.persistent, .sharedBetweenInstances, .subSecondDates] }

    func openBackend(corruption: CorruptionPolicy) throws -> any Backend {
        PostgresBackend(url: url, namespace: namespace)
    }
}
