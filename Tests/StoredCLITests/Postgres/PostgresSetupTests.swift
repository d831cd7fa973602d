import Foundation
import Testing

/// `stored postgres-setup` from an empty database: an owner runs it once, the application role
/// then reads and writes owning nothing, a read-only role reads, and nobody else may run
/// StoredKit's functions. Role names are bound, never spliced into SQL.
@Suite("stored postgres-setup", .enabled(if: CLIPostgresServer.isEnabled, CLIPostgresServer.skipMessage))
struct PostgresSetupTests {
    @Test func anOwnerSetsUpAppAndReadOnlyRolesFromAnEmptyDatabase() throws {
        let cluster = try Cluster()
        defer { cluster.drop() }
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let app = cluster.url(as: cluster.app)

        // Before the setup the application role may not create the tables: the open says what to do.
        let refused = try cli.run("write", app, "--namespace", "n", "volume", "1")
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.errorOutput.contains("stored postgres-setup"), "\(refused)")

        let setup = try cli.run(
            "postgres-setup", cluster.url(as: cluster.owner), "--role", cluster.app, "--read-only-role", cluster.reader,
            "--apply")
        #expect(setup.status == 0, "\(setup)")

        #expect(try cli.run("write", app, "--namespace", "n", "volume", "0.5").status == 0)
        #expect(try cli.run("read", app, "--namespace", "n", "volume").stdout == "\"0.5\"\n")
        let reader = cluster.url(as: cluster.reader)
        #expect(try cli.run("read", reader, "--namespace", "n", "volume").stdout == "\"0.5\"\n")
        let write = try cli.run("write", reader, "--namespace", "n", "volume", "0.9")
        #expect(write.status != 0 && write.errorOutput.contains("may only read"), "\(write)")

        // Exactly the grants, and the tables owned by the owner.
        let grants = try cluster.sql(
            """
            SELECT grantee || ':' || string_agg(privilege_type, ',' ORDER BY privilege_type) FROM information_schema.role_table_grants
                WHERE table_schema = 'storedkit' AND table_name = 'preferences' AND grantee IN ('\(cluster.app)', '\(cluster.reader)')
                GROUP BY grantee ORDER BY grantee
            """)
        #expect(grants.contains("\(cluster.app):DELETE,INSERT,SELECT,UPDATE"), "\(grants)")
        #expect(grants.contains("\(cluster.reader):SELECT\n") || grants.hasSuffix("\(cluster.reader):SELECT"), "\(grants)")
        let owner = try cluster.sql(
            "SELECT tableowner FROM pg_tables WHERE schemaname = 'storedkit' AND tablename = 'preferences'")
        #expect(owner == cluster.owner)
        let executable = try cluster.sql(
            """
            SELECT has_function_privilege('\(cluster.app)', 'storedkit.bump_for_hand_edit(text)', 'EXECUTE')::text || ' '
                || has_function_privilege('\(cluster.reader)', 'storedkit.bump_for_hand_edit(text)', 'EXECUTE')::text || ' '
                || has_function_privilege('\(cluster.reader)', 'storedkit.record_hand_edits()', 'EXECUTE')::text
            """)
        #expect(executable == "true false false")
    }

    @Test func roleNamesAreBoundNotSplicedIntoSQL() throws {
        let cluster = try Cluster()
        defer { cluster.drop() }
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let hostile = "x'; DROP TABLE canary; --\""
        try cluster.sql("CREATE TABLE canary (n int)", as: cluster.owner)
        let printed = try cli.run("postgres-setup", cluster.url(as: cluster.owner), "--role", hostile)
        #expect(printed.status == 0)
        #expect(printed.stdout.contains("set_config('storedkit.setup_role', 'x''; DROP TABLE canary; --\"', true)"))
        #expect(printed.stdout.contains("format('GRANT USAGE ON SCHEMA storedkit TO %I'"))
        let applied = try cli.run("postgres-setup", cluster.url(as: cluster.owner), "--role", hostile, "--apply")
        #expect(applied.status != 0, "\(applied)")
        #expect(applied.errorOutput.contains("does not exist"), "\(applied)")
        #expect(try cluster.sql("SELECT count(*) FROM canary") == "0")
    }

    /// A database of its own, owned by a fresh owner role, with a fresh application role and a
    /// read-only role; every role logs in by trust, as the test server allows.
    struct Cluster {
        let admin: String
        let database = "setup_\(UUID().uuidString.prefix(8).lowercased())"
        let owner: String
        let app: String
        let reader: String

        init() throws {
            admin = try CLIPostgresServer.requireURL()
            let suffix = database.dropFirst(6)
            (owner, app, reader) = ("owner_\(suffix)", "app_\(suffix)", "reader_\(suffix)")
            try CLIPostgresServer.psql(
                admin,
                """
                CREATE ROLE \(owner) LOGIN; CREATE ROLE \(app) LOGIN; CREATE ROLE \(reader) LOGIN;
                """)
            try CLIPostgresServer.psql(admin, "CREATE DATABASE \(database) OWNER \(owner)")
        }

        func url(as role: String) -> String {
            guard let slash = admin.range(of: "/", options: .backwards) else { return admin }
            return (String(admin[..<slash.upperBound]) + database).replacingOccurrences(of: "postgres@", with: "\(role)@")
        }

        @discardableResult
        func sql(_ text: String, as role: String = "postgres") throws -> String {
            try CLIPostgresServer.psql(url(as: role), text).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func drop() {
            CLIPostgresServer.dropDatabase(database)
            for role in [owner, app, reader] { _ = try? CLIPostgresServer.psql(admin, "DROP ROLE IF EXISTS \(role)") }
        }
    }
}
