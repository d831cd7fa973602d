import Foundation
import Testing

/// `stored access` from a real `stored` process, with real roles on the test server: the owner
/// grants, lists and revokes; a limited role's `write`, `read` and `namespaces` reach only what its
/// rules cover; `grant` refuses the owner and a superuser; a hostile role name is bound, not spliced;
/// an error that names the `stored` command to run is not followed by advice against it.
@Suite("stored access", .enabled(if: CLIPostgresServer.isEnabled, CLIPostgresServer.skipMessage))
struct PostgresAccessCommandTests {
    @Test func theOwnerLimitsARoleToItsTeamsNamespaces() throws {
        let cluster = try PostgresSetupTests.Cluster()
        defer { cluster.drop() }
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let owner = cluster.url(as: cluster.owner)
        let app = cluster.url(as: cluster.app)
        let setup = try cli.run(
            "postgres-setup", owner, "--role", cluster.app, "--read-only-role", cluster.reader, "--apply")
        #expect(setup.status == 0, "\(setup)")
        #expect(try cli.run("access", owner, "list").stdout == "\(cluster.app) * readwrite\n\(cluster.reader) * read\n")

        #expect(try cli.run("access", owner, "revoke", cluster.app, "*").status == 0)
        let granted = try cli.run("access", owner, "grant", cluster.app, "team:blue:*")
        #expect(granted.status == 0 && granted.stdout.contains("may now read and write"), "\(granted)")
        for namespace in ["team:blue:1", "team:red:1", "user:1"] {
            #expect(try cli.run("write", owner, "--namespace", namespace, "secret", "of \(namespace)").status == 0)
        }

        #expect(try cli.run("write", app, "--namespace", "team:blue:1", "note", "ok").status == 0)
        #expect(try cli.run("read", app, "--namespace", "team:blue:1", "secret").stdout == "\"of team:blue:1\"\n")
        let refused = try cli.run("write", app, "--namespace", "team:red:1", "note", "x")
        #expect(refused.status == 5, "\(refused)")
        #expect(refused.errorOutput.contains("no access rule for namespace 'team:red:1'"), "\(refused)")
        #expect(refused.errorOutput.contains("team:blue:* (read-write)"), "\(refused)")
        let unread = try cli.run("read", app, "--namespace", "user:1", "secret")
        // Refused as the write is, not "no such namespace": the namespace exists, the rule is missing.
        #expect(unread.status == 5 && !unread.stdout.contains("of user:1"), "\(unread)")
        #expect(unread.errorOutput.contains("no access rule for namespace 'user:1'"), "\(unread)")
        #expect(try cli.run("namespaces", app).stdout == "\"team:blue:1\": 2 keys, schema version 0\n")
        #expect(
            try cluster.sql("SELECT string_value FROM storedkit.preferences WHERE namespace = 'team:red:1'") == "of team:red:1")

        // The reader's `read *` rule still lets it read every namespace, and write none.
        #expect(
            try cli.run("read", cluster.url(as: cluster.reader), "--namespace", "user:1", "secret").stdout == "\"of user:1\"\n")

        for (role, reason) in [(cluster.owner, "owns StoredKit's tables"), ("postgres", "is a superuser")] {
            let bypass = try cli.run("access", owner, "grant", role, "user:*")
            #expect(bypass.status != 0 && bypass.errorOutput.contains("'\(role)' \(reason)"), "\(bypass)")
        }
        // A password in the URL (the test server ignores it) is never shown in what to run next.
        let withPassword = owner.replacingOccurrences(of: "://\(cluster.owner)@", with: "://\(cluster.owner):s3cret@")
        let missing = try cli.run("access", withPassword, "revoke", cluster.app, "team:red:*")
        #expect(missing.status == 1 && missing.errorOutput.contains("has no rule for exactly"), "\(missing)")
        #expect(missing.errorOutput.contains("stored access postgresql://") && !missing.errorOutput.contains("s3cret"))
        let usage = try cli.run("access", owner, "grant", cluster.app)
        #expect(usage.status == 2, "\(usage)")
    }

    @Test func errorsThatNameTheStoredCommandToRunGetNoAdviceAgainstIt() throws {
        let cluster = try PostgresSetupTests.Cluster()
        defer { cluster.drop() }
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let owner = cluster.url(as: cluster.owner)
        for arguments in [["grant", cluster.app, "user:*"], ["revoke", cluster.app, "user:*"], ["list"]] {
            let early = try cli.run(["access", owner] + arguments)
            #expect(early.status != 0 && early.errorOutput.contains("run `stored postgres-setup URL"), "\(early)")
            // Nothing was opened or dropped: the advice for a table dropped under an open store is wrong here.
            #expect(!early.errorOutput.contains("dropped") && early.errorOutput.contains("Nothing was changed"), "\(early)")
        }
        #expect(try cluster.sql("SELECT count(*) FROM pg_namespace WHERE nspname = 'storedkit'") == "0")

        // The same class: a refusal that names `stored access … grant` is not told to GRANT table privileges.
        #expect(try cli.run("postgres-setup", owner, "--role", cluster.app, "--apply").status == 0)
        #expect(try cli.run("access", owner, "revoke", cluster.app, "*").status == 0)
        let refused = try cli.run("read", cluster.url(as: cluster.app), "--namespace", "user:1")
        #expect(refused.errorOutput.contains("stored access URL grant \(cluster.app) PATTERN"), "\(refused)")
        #expect(!refused.errorOutput.contains("GRANT"), "\(refused)")
        let notOwner = try cli.run("access", cluster.url(as: cluster.app), "grant", cluster.app, "user:*")
        #expect(notOwner.status != 0 && notOwner.errorOutput.contains("run `stored access` as that role"), "\(notOwner)")
        #expect(!notOwner.errorOutput.contains("GRANT"), "\(notOwner)")
        // And a write under a read-only rule: the remedy is a read-write rule, not the setup's table grants.
        #expect(try cli.run("access", owner, "grant", cluster.app, "user:*", "--read-only").status == 0)
        let readOnly = try cli.run("write", cluster.url(as: cluster.app), "--namespace", "user:1", "k", "v")
        #expect(readOnly.status != 0, "\(readOnly)")
        #expect(readOnly.errorOutput.contains("`stored access URL grant \(cluster.app) PATTERN`"), "\(readOnly)")
        #expect(!readOnly.errorOutput.contains("prints the grants"), "\(readOnly)")
    }

    /// Rules add up: a read-only rule under a wider read-write one (the role's own, or a group's
    /// it is a member of) limits nothing, so `grant` must not say the role may "only read", must
    /// name the wider rule and the `revoke` that makes the new one mean what it says, and `list`
    /// must mark the shadowed rule.
    @Test func aReadOnlyRuleUnderAWiderReadWriteOneIsNotCalledReadOnly() throws {
        let cluster = try PostgresSetupTests.Cluster()
        defer { cluster.drop() }
        let group = "group_\(cluster.database.dropFirst(6))"
        try cluster.sql("CREATE ROLE \(group) NOLOGIN; GRANT \(group) TO \(cluster.reader)")
        defer { _ = try? cluster.sql("DROP OWNED BY \(group); DROP ROLE IF EXISTS \(group)") }
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let owner = cluster.url(as: cluster.owner)
        let server = owner  // no password in the test URL: the server as messages show it
        #expect(try cli.run("postgres-setup", owner, "--role", cluster.app, "--apply").status == 0)

        let own = try cli.run("access", owner, "grant", cluster.app, "user:*", "--read-only")
        #expect(own.status == 0, "\(own)")
        #expect(!own.stdout.contains("only read") && !own.errorOutput.contains("may now only read"), "\(own)")
        #expect(own.errorOutput.contains("'\(cluster.app)' may still write"), "\(own)")
        #expect(own.errorOutput.contains("\(cluster.app) * readwrite"), "\(own)")
        #expect(own.errorOutput.contains("stored access \(server) revoke \(cluster.app) '*'"), "\(own)")
        // What it says is what the server does: the app still writes user:1.
        #expect(try cli.run("write", cluster.url(as: cluster.app), "--namespace", "user:1", "k", "v").status == 0)

        // Through a group: the group's rule is named, with the revoke and the membership to end.
        #expect(try cli.run("access", owner, "grant", group, "*").status == 0)
        let member = try cli.run("access", owner, "grant", cluster.reader, "user:*", "--read-only")
        #expect(member.status == 0 && !member.stdout.contains("only read"), "\(member)")
        #expect(member.errorOutput.contains("\(group) * readwrite"), "\(member)")
        #expect(member.errorOutput.contains("a member of '\(group)'"), "\(member)")
        #expect(member.errorOutput.contains("stored access \(server) revoke \(group) '*'"), "\(member)")

        // A rule only partly under a read-write one: named too.
        #expect(try cli.run("access", owner, "revoke", cluster.app, "*").status == 0)
        #expect(try cli.run("access", owner, "grant", cluster.app, "user:4*").status == 0)
        let partial = try cli.run("access", owner, "grant", cluster.app, "user:*", "--read-only")
        #expect(!partial.stdout.contains("only read") && partial.errorOutput.contains("user:4* readwrite"), "\(partial)")

        let list = try cli.run("access", owner, "list").stdout.split(separator: "\n").map(String.init)
        #expect(list.contains { $0.hasPrefix("\(cluster.app) user:* read") && $0.contains("user:4* readwrite") }, "\(list)")
        #expect(list.contains { $0.hasPrefix("\(cluster.reader) user:* read") && $0.contains("\(group) * readwrite") }, "\(list)")
        #expect(list.contains("\(cluster.app) user:4* readwrite") && list.contains("\(group) * readwrite"), "\(list)")

        // Once the wider rules are gone the rule means what it says, and grant says so.
        #expect(try cli.run("access", owner, "revoke", cluster.app, "user:4*").status == 0)
        let alone = try cli.run("access", owner, "grant", cluster.app, "user:*", "--read-only")
        #expect(alone.stdout.contains("may now only read") && alone.errorOutput.isEmpty, "\(alone)")
        #expect(try cli.run("access", owner, "list").stdout.contains("\(cluster.app) user:* read\n"))
    }

    /// Confirmations claim only what the server allows: a setup run again does not say a role whose
    /// rules it kept "may read and write"; `layers` does not call a namespace its role may only read
    /// writable; `namespaces` and `access list` do not say the server has none when the rules only hide them.
    @Test func whatStoredConfirmsToALimitedRoleIsWhatTheServerAllows() throws {
        let cluster = try PostgresSetupTests.Cluster()
        defer { cluster.drop() }
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let owner = cluster.url(as: cluster.owner)
        let app = cluster.url(as: cluster.app)
        let setup = try cli.run(
            "postgres-setup", owner, "--role", cluster.app, "--read-only-role", cluster.reader, "--apply")
        #expect(setup.stdout.contains("'\(cluster.app)' may read and write every namespace"), "\(setup)")
        #expect(setup.stdout.contains("'\(cluster.reader)' may read every namespace"), "\(setup)")
        #expect(try cli.run("write", owner, "--namespace", "team:1", "k", "v").status == 0)
        #expect(try cli.run("access", owner, "revoke", cluster.app, "*").status == 0)
        #expect(try cli.run("access", owner, "grant", cluster.app, "team:*", "--read-only").status == 0)

        let again = try cli.run("postgres-setup", owner, "--role", cluster.app, "--apply")
        #expect(again.status == 0 && !again.stdout.contains("may read and write"), "\(again)")
        #expect(again.stdout.contains("keeps its access rules (team:* (read))"), "\(again)")

        let layers = try cli.run("layers", app, "--namespace", "team:1")
        #expect(layers.lines.last?.hasSuffix("read-only") == true, "\(layers)")
        #expect(try cli.run("layers", owner, "--namespace", "team:1").lines.last?.hasSuffix("writable") == true)

        #expect(try cli.run("access", owner, "revoke", cluster.app, "team:*").status == 0)
        #expect(try cli.run("access", owner, "grant", cluster.app, "user:*").status == 0)
        let none = try cli.run("namespaces", app)
        #expect(!none.errorOutput.contains("holds no StoredKit namespace"), "\(none)")
        #expect(none.errorOutput.contains("no namespace that the access rules of '\(cluster.app)' cover"), "\(none)")
        #expect(try cli.run("access", owner, "revoke", cluster.reader, "*").status == 0)
        let rules = try cli.run("access", cluster.url(as: cluster.reader), "list")
        #expect(!rules.errorOutput.contains("has no access rule:"), "\(rules)")
        #expect(rules.errorOutput.contains("no access rule applies to '\(cluster.reader)'"), "\(rules)")
    }

    @Test func roleNamesAndPatternsAreBoundNotSpliced() throws {
        let cluster = try PostgresSetupTests.Cluster()
        defer { cluster.drop() }
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let owner = cluster.url(as: cluster.owner)
        #expect(try cli.run("postgres-setup", owner, "--role", cluster.app, "--apply").status == 0)
        try cluster.sql("CREATE TABLE canary (n int)", as: cluster.owner)
        let hostile = "x'); DROP TABLE canary; --\""
        let role = try cli.run("access", owner, "grant", hostile, "user:*")
        #expect(role.status != 0 && role.errorOutput.contains("does not exist"), "\(role)")
        let pattern = try cli.run("access", owner, "grant", cluster.app, hostile)
        #expect(pattern.status == 0, "\(pattern)")
        #expect(try cli.run("access", owner, "list").stdout.contains("\(cluster.app) \(hostile) readwrite"))
        #expect(try cluster.sql("SELECT count(*) FROM canary") == "0")
    }
}
