import Foundation
import StoredKitTestSupport
import Testing

/// The throwaway server `make test` starts, as the CLI tests reach it: its URL, a namespace per
/// test, and `psql` for what a person at a terminal would do. Without the server the suites skip.
enum CLIPostgresServer {
    static let environment = ProcessInfo.processInfo.environment
    static let url = environment["STOREDKIT_POSTGRES_URL"]
    static let isEnabled = url != nil || environment["CI"] == "true"
    static let skipMessage: Comment =
        "No PostgreSQL test server: run `make test` (it starts one), or set STOREDKIT_POSTGRES_URL"

    /// The password of the SCRAM role `storedkit_password_test` (Scripts/postgres-test-server.sh
    /// makes it give one); no output may ever contain it.
    static let password = "Cli-S3cret-Pa55"

    struct MissingServer: Error, CustomStringConvertible {
        var description: String { "STOREDKIT_POSTGRES_URL is not set: run `make test`" }
    }

    static func requireURL() throws -> String {
        guard let url else { throw MissingServer() }
        return url
    }

    /// A namespace no other test uses.
    static func freshNamespace(_ label: String) -> String { "cli-\(label)-\(UUID().uuidString.prefix(8))" }

    /// A database of its own owned by the password role, and its URL as that role, password
    /// included: the role then creates (and may upgrade) StoredKit's tables there itself, whatever
    /// other tests did to the tables of the default database. ``dropDatabase(_:)`` removes it.
    static func passwordURL() throws -> (url: String, database: String) {
        let url = try requireURL()
        let database = "cli_password_\(UUID().uuidString.prefix(8).lowercased())"
        try psql(
            url,
            """
            DO $$ BEGIN
                CREATE ROLE storedkit_password_test LOGIN;
            EXCEPTION WHEN duplicate_object THEN NULL;
            END $$;
            ALTER ROLE storedkit_password_test PASSWORD '\(password)';
            """)
        try psql(url, "CREATE DATABASE \(database) OWNER storedkit_password_test")
        guard let slash = url.range(of: "/", options: .backwards) else { throw MissingServer() }
        let own = String(url[..<slash.upperBound]) + database
        return (own.replacingOccurrences(of: "postgres@", with: "storedkit_password_test:\(password)@"), database)
    }

    static func dropDatabase(_ database: String) {
        guard let url else { return }
        _ = try? psql(url, "DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
    }

    /// Runs SQL with `psql`; its output, or a failure.
    @discardableResult
    static func psql(_ url: String, _ sql: String) throws -> String {
        try ExternalCommand.psql(url, sql)
    }
}
