import Foundation
import StoredKitTestSupport
import Testing

/// What `stored` says about bad server URLs, a server that is not there and passwords.
@Suite("stored errors about PostgreSQL servers", .enabled(if: CLIPostgresServer.isEnabled, CLIPostgresServer.skipMessage))
struct PostgresErrorTests {
    @Test func anUnreachableServerExitsWithStatus6AndSaysWhatToCheck() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let port = closedLocalPort()
        for url in [
            "postgresql://app:\(CLIPostgresServer.password)@127.0.0.1:\(port)/prefs",
            "host=127.0.0.1 port=\(port) user=app password=\(CLIPostgresServer.password) dbname=prefs",
        ] {
            for arguments in [["read", url], ["write", url, "a", "1"], ["namespaces", url], ["import", url, "-"]] {
                let outcome = try cli.run(arguments, input: Data("{}".utf8))
                #expect(outcome.status == 6, "\(arguments): \(outcome)")
                #expect(outcome.errorOutput.contains("postgresql://app@127.0.0.1:\(port)/prefs"), "\(outcome)")
                #expect(outcome.errorOutput.contains("Check that the server is running"), "\(outcome)")
                #expect(!outcome.errorOutput.contains(CLIPostgresServer.password), "\(outcome)")
            }
        }
        #expect(try cli.run("help").stdout.contains("6  PostgreSQL server unreachable"))
    }

    @Test("a role at its connection limit is status 5 naming the limit, not 6 'unreachable'")
    func aRolesConnectionLimitIsNotAnUnreachableServer() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        try CLIPostgresServer.psql(
            url,
            """
            DO $$ BEGIN CREATE ROLE storedkit_cli_limited LOGIN CONNECTION LIMIT 0;
            EXCEPTION WHEN duplicate_object THEN ALTER ROLE storedkit_cli_limited CONNECTION LIMIT 0; END $$;
            """)
        let limited = url.replacingOccurrences(of: "://postgres@", with: "://storedkit_cli_limited@")

        let outcome = try cli.run("read", limited, "a")

        #expect(outcome.status == 5, "\(outcome)")
        #expect(outcome.errorOutput.contains("too many connections for role"), "\(outcome)")
        #expect(outcome.errorOutput.contains("CONNECTION LIMIT"), "\(outcome)")
        #expect(!outcome.errorOutput.contains("Check that the server is running"), "\(outcome)")
    }

    @Test func aMalformedURLIsInvalidInputWithoutItsPassword() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let outcome = try cli.run("read", "postgresql://app:\(CLIPostgresServer.password)@[db/prefs")
        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.errorOutput.contains("not a valid libpq URL"), "\(outcome)")
        #expect(!outcome.errorOutput.contains(CLIPostgresServer.password), "\(outcome)")
        let unknown = try cli.run("read", "postgresql://db/prefs?no_such_parameter=1")
        #expect(unknown.status == 3, "\(unknown)")
    }

    @Test func namespaceOptionsMustFitTheStore() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        #expect(try cli.run("read", "prefs.sqlite", "--namespace", "x").status == 2)
        #expect(try cli.run("read", url, "--namespace", "").status == 2)
        #expect(try cli.run("convert", "a.plist", "b.sqlite", "--namespace", "x").status == 2)
        #expect(try cli.run("convert", url, "b.sqlite", "--to-namespace", "x").status == 2)
        #expect(try cli.run("help", "read").stdout.contains("--namespace NAME"))
        let same = try cli.run("convert", url, url, "--namespace", "x")
        #expect(same.status == 2 && same.errorOutput.contains("the same store"), "\(same)")
    }

    /// The role of the test server that must give a password: no command prints it, neither when
    /// it works nor when it is wrong.
    @Test func thePasswordIsNeverPrinted() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let (url, database) = try CLIPostgresServer.passwordURL()
        defer { CLIPostgresServer.dropDatabase(database) }
        let password = CLIPostgresServer.password
        let namespace = CLIPostgresServer.freshNamespace("password")
        var outcomes = [
            try cli.run("write", url, "a", "1", "--int", "--namespace", namespace),
            try cli.run("info", url, "--namespace", namespace),
            try cli.run("info", url, "--namespace", namespace, "--json"),
            try cli.run("read", url, "missing", "--namespace", namespace),
            try cli.run("keys", url, "--namespace", CLIPostgresServer.freshNamespace("none")),
            try cli.run("check", url, "--namespace", namespace),
            try cli.run("namespaces", url),
            try cli.run("convert", url, url, "--namespace", namespace, "--to-namespace", namespace),
        ]
        #expect(outcomes[0].status == 0, "\(outcomes[0])")
        #expect(outcomes[1].stdout.contains("postgresql://storedkit_password_test@127.0.0.1:"), "\(outcomes[1])")
        #expect(outcomes[3].errorOutput.contains("'stored keys postgresql://storedkit_password_test@"), "\(outcomes[3])")
        let wrong = url.replacingOccurrences(of: password, with: password + "-wrong")
        let refused = try cli.run("read", wrong, "--namespace", namespace)
        #expect(refused.status == 5, "\(refused)")
        #expect(refused.errorOutput.contains("Check the user name and the password"), "\(refused)")
        outcomes.append(refused)
        for outcome in outcomes {
            #expect(!outcome.stdout.contains(password) && !outcome.errorOutput.contains(password), "\(outcome)")
        }
    }
}
