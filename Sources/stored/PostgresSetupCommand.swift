import StoredKit
import StoredKitPostgres

// `postgres-setup`: the SQL a DBA runs once, so application roles need to own nothing.
extension Command {
    static let postgresSetup = Command(
        name: "postgres-setup",
        arguments: "URL",
        summary: "Print (or run) the SQL that creates StoredKit's tables and grants a role their use",
        discussion: """
            Prints a script for psql, to run as the role that is to own StoredKit's schema: it creates
            schema storedkit and its tables and grants the --role USAGE on it, SELECT, INSERT, UPDATE,
            DELETE on the tables and EXECUTE on the function hand edits call, nothing more; EXECUTE is
            revoked from PUBLIC; the --read-only-role gets USAGE and SELECT only. Role names are bound,
            never spliced into SQL. A database of StoredKit 0.9.0 or before is moved into the schema,
            every row kept (the old tables stay as storedkit_*_layout_1), and older clients then fail
            naming the release they need: run it as the old tables' owner, a member of that role, or a
            superuser. It also installs the namespace access rules (see 'stored help access') and gives
            the --role the rule 'readwrite *' and the --read-only-role 'read *' when they have none yet.
            With --apply, runs it on URL, whose role must own the database (or may create the schema).
            """,
        options: [
            OptionSpec("role", value: "ROLE", "The application role that reads and writes."),
            OptionSpec("read-only-role", value: "ROLE", "A role that may only read and observe."),
            OptionSpec("apply", "Run the script on URL instead of printing it."),
        ],
        examples: [
            "stored postgres-setup postgresql://owner@db/prefs --role app",
            "stored postgres-setup postgresql://owner@db/prefs --role app --read-only-role reporting --apply",
        ],
        positionalCount: 1...1
    ) { arguments, console in
        let argument = arguments.positionals[0]
        guard PostgresLocation.isServer(argument) else {
            throw CLIError.usage("postgres-setup", "'\(argument)' is not a postgresql:// URL or libpq key=value string")
        }
        guard let role = arguments.value("role"), !role.isEmpty else {
            throw CLIError.usage("postgres-setup", "--role ROLE is required: the application role to grant")
        }
        let readOnlyRole = arguments.value("read-only-role")
        for name in [role, readOnlyRole ?? ""] where name.utf8.contains(0) {
            throw CLIError.usage("postgres-setup", "a role name cannot hold U+0000")
        }
        guard arguments.has("apply") else {
            return console.print(PostgresSetup.script(role: role, readOnlyRole: readOnlyRole))
        }
        let server = try PostgresLocation(argument, namespace: "default")
        let rules = try PostgresSetup.apply(url: server.url, role: role, readOnlyRole: readOnlyRole)
        // A role that had access rules keeps them: say what each may do now, not what the setup would give.
        func may(_ name: String, default rule: String, _ verb: String) -> String {
            let current = rules[name] ?? nil
            if current == rule { return "'\(name)' may \(verb) every namespace" }
            return "'\(name)' keeps its access rules (\(current ?? "none: it sees no namespace"))"
        }
        console.print(
            "StoredKit's tables are ready on \(server.server); \(may(role, default: "* (read-write)", "read and write"))"
                + (readOnlyRole.map { "; \(may($0, default: "* (read)", "read"))" } ?? "") + ".")
    }
}
