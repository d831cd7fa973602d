import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// Bad URLs and unreachable servers fail the open with an error that names the server and
/// says what to do, and never print the password.
@Suite("PostgreSQL connection errors are clear and keep the password secret")
struct PostgresConnectionErrorTests {
    static let password = "s3cr3t-Pa55"

    @Test(arguments: [
        "postgresql://app:\(password)@127.0.0.1:1/prefs",
        "host=127.0.0.1 port=1 user=app password=\(password) dbname=prefs",
    ])
    func aRefusedConnectionNamesTheServerWithoutThePassword(url: String) throws {
        let backend = PostgresBackend(url: url, namespace: "user:42")
        #expect(!backend.location.contains(Self.password))
        #expect(backend.location.contains("127.0.0.1:1/prefs"))
        let error = try #require(throws: StoreError.self) { try PreferenceStore(backend) }
        guard case .postgres(let server, let code, _) = error else {
            Issue.record("expected a PostgreSQL error, got \(error)")
            return
        }
        #expect(server == "postgresql://app@127.0.0.1:1/prefs")
        // 08001 (could not connect), or 08006 when the other case, on the same server, already
        // found it down: the process's stores of one server share what they know of an outage.
        #expect(code == "08001" || code == "08006", "\(error)")
        #expect(!error.description.contains(Self.password))
        #expect(error.description.contains("Check that the server is running"))
    }

    @Test(arguments: [
        "postgresql://app:\(password)@[::1/prefs",
        "postgresql://app:\(password)@host/prefs?nosuchparameter=1",
        "password=\(password) host=",
        "password='\(password)' = broken",
    ])
    func aMalformedURLSaysHowToWriteOneWithoutThePassword(url: String) throws {
        let backend = PostgresBackend(url: url)
        #expect(!backend.location.contains(Self.password))
        let error = try #require(throws: StoreError.self) { try backend.load() }
        #expect(!error.description.contains(Self.password), "\(error)")
        #expect(error.description.contains("postgresql://"), "\(error)")
    }
}

/// A wrong password against the test server, whose role `storedkit_password_test` must give one.
@Suite(
    "A wrong PostgreSQL password gives a clear error without it",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresWrongPasswordTests {
    @Test func aWrongPasswordSaysSoAndNeverShowsIt() throws {
        let url = try PostgresTestServer.requireURL()
        let admin = try PostgresConnection(address: PostgresAddress(url))
        try admin.run(
            """
            DO $$ BEGIN
                CREATE ROLE storedkit_password_test LOGIN PASSWORD 'the-right-one';
            EXCEPTION WHEN duplicate_object THEN NULL;
            END $$
            """)
        let wrong = "Wr0ng-Pa55word"
        let target = url.replacingOccurrences(of: "postgres@", with: "storedkit_password_test:\(wrong)@")
        let error = try #require(throws: StoreError.self) {
            try PreferenceStore(.postgres(url: target, namespace: "secret"))
        }
        guard case .postgres(let server, let code, _) = error else {
            Issue.record("expected a PostgreSQL error, got \(error)")
            return
        }
        #expect(code == "28P01")
        #expect(server.hasPrefix("postgresql://storedkit_password_test@127.0.0.1:"))
        #expect(error.description.contains("Check the user name and the password"), "\(error)")
        #expect(error.description.contains("password authentication failed"), "\(error)")
        #expect(!error.description.contains(wrong))
    }
}
