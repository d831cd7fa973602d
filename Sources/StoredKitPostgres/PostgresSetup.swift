import StoredKit

/// What a DBA runs once so that application roles need no ownership: schema `storedkit` and its
/// tables, owned by the role that runs it (a database of StoredKit 0.9.0 or before moved into it),
/// and the grants for an application role and, optionally, a read-only role
/// (`stored postgres-setup`). Role names are never spliced into SQL text: ``apply(url:role:readOnlyRole:)``
/// binds them with `set_config`, and the script quotes them with `format('%I')`.
///
/// ```swift
/// print(PostgresSetup.script(role: "app", readOnlyRole: "reporting"))
/// try PostgresSetup.apply(url: "postgresql://owner@db/prefs", role: "app", readOnlyRole: nil)
/// ```
package enum PostgresSetup {
    /// The grants, reading the role names from the settings `storedkit.setup_role` and
    /// `storedkit.setup_read_only_role` (empty: none). The application role gets `USAGE` on schema
    /// `storedkit`, `SELECT` on `storedkit.layout`, `SELECT, INSERT, UPDATE, DELETE` on the three
    /// tables and `EXECUTE` on the function a hand edit calls and the one a write of one key calls
    /// (``PostgresLayout/writeAloneFunction``), nothing more; the read-only
    /// role gets `USAGE` and `SELECT`. Names are quoted with `format('%I')`, never spliced.
    static let grants = """
        DO $setup$
        DECLARE
            app text := coalesce(current_setting('storedkit.setup_role', true), '');
            reader text := coalesce(current_setting('storedkit.setup_read_only_role', true), '');
        BEGIN
            IF app <> '' THEN
                EXECUTE format('GRANT USAGE ON SCHEMA storedkit TO %I', app);
                EXECUTE format('GRANT SELECT ON TABLE storedkit.layout TO %I', app);
                EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE storedkit.namespaces, storedkit.preferences, '
                    'storedkit.removed_keys TO %I', app);
                EXECUTE format('GRANT EXECUTE ON FUNCTION storedkit.bump_for_hand_edit(text), \(PostgresLayout.writeAloneSignature) TO %I', app);
            END IF;
            IF reader <> '' THEN
                EXECUTE format('GRANT USAGE ON SCHEMA storedkit TO %I', reader);
                EXECUTE format('GRANT SELECT ON TABLE storedkit.layout, storedkit.namespaces, storedkit.preferences, '
                    'storedkit.removed_keys TO %I', reader);
            END IF;
        END
        $setup$;
        """

    /// Everything the setup runs, in order: the layout (``PostgresLayout/create``), the move of a
    /// first-layout database (``PostgresLayout/moveFirstLayout``) and the guard for older clients
    /// in its place, then the grants.
    static let statements = [
        PostgresLayout.lockSchema + ";", PostgresLayout.create, PostgresLayout.moveFirstLayout,
        PostgresLayout.oldClientGuard, grants, defaultRules,
    ]

    /// The access rules (``PostgresAccess``) of the roles the setup names, when they have none
    /// yet: the application role reads and writes every namespace (`*`), the read-only role reads
    /// them; a role with rules already keeps exactly those, so running the setup again never widens them.
    static let defaultRules = """
        INSERT INTO storedkit.access_rules (role, pattern, writable)
            SELECT s.name, '*', s.writable FROM (VALUES (coalesce(current_setting('storedkit.setup_role', true), ''), true),
                (coalesce(current_setting('storedkit.setup_read_only_role', true), ''), false)) AS s(name, writable)
            WHERE s.name <> '' AND NOT EXISTS (SELECT 1 FROM storedkit.access_rules AS r WHERE r.role = s.name)
            ON CONFLICT (role, pattern) DO NOTHING;
        """

    /// The whole script for `psql`, run by the owning role: the role names as settings (quoted as
    /// SQL string literals), the layout, the move of an older database, the grants, in one transaction.
    package static func script(role: String, readOnlyRole: String?) -> String {
        """
        -- StoredKit setup: run as the role that is to own StoredKit's schema (psql -1 -f or --apply).
        -- A database of StoredKit 0.9.0 or before is moved into schema storedkit: run it then as the
        -- owner of its storedkit_* tables (or a member of that role, or a superuser).
        BEGIN;
        SELECT set_config('storedkit.setup_role', \(literal(role)), true);
        SELECT set_config('storedkit.setup_read_only_role', \(literal(readOnlyRole ?? "")), true);
        \(statements.joined(separator: "\n"))
        COMMIT;
        """
    }

    /// Runs the script on `url` as its role, the names bound as parameters; throws the server's
    /// error (a role that does not exist, a schema the role may not create, first-layout tables
    /// it does not own). Returns the access rules each named role has now, as the refusal of an
    /// open lists them (`* (read-write)`; nil: none), since a role with rules already keeps them.
    ///
    /// ```swift
    /// try PostgresSetup.apply(url: "postgresql://owner@db/prefs", role: "app", readOnlyRole: nil)  //=> ["app": "* (read-write)"]
    /// ```
    @discardableResult
    package static func apply(url: String, role: String, readOnlyRole: String?) throws -> [String: String?] {
        let connection = try PostgresConnection(address: PostgresAddress(url))
        try connection.run("BEGIN")
        do {
            try connection.query("SELECT set_config('storedkit.setup_role', $1, true)", [role])
            try connection.query("SELECT set_config('storedkit.setup_read_only_role', $1, true)", [readOnlyRole ?? ""])
            for statement in statements { try connection.run(statement) }
            var rules: [String: String?] = [:]
            for name in [role, readOnlyRole ?? ""] where !name.isEmpty {
                rules[name] = try connection.query(rulesOfRole, [name]).first?.first ?? nil
            }
            try connection.run("COMMIT")
            return rules
        } catch {
            connection.rollback()
            guard case .postgres(let server, "42501", let message)? = error as? StoreError, message.contains("storedkit_")
            else { throw error }
            throw StoreError.postgres(
                server: server, code: "42501",
                message: message + ". The tables of StoredKit 0.9.0 and before belong to the role that created them: "
                    + "run the setup as that role, as a member of it (GRANT that role TO this one) or as a superuser")
        }
    }

    /// `$1` role: its own access rules, as ``PostgresAccess/access`` lists them (NULL: none).
    static let rulesOfRole = """
        SELECT string_agg(pattern || CASE WHEN writable THEN ' (read-write)' ELSE ' (read)' END, ', ' ORDER BY pattern)
            FROM storedkit.access_rules WHERE role = $1
        """

    /// `text` as an SQL string literal (`standard_conforming_strings`, on since PostgreSQL 9.1).
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `error` with what to do when it says the role may not create or change StoredKit's tables;
    /// `olderLayout`, the layout the database holds when it is older than this client's (its
    /// tables are to be upgraded in place, which only their owner may).
    static func explained(_ error: any Error, olderLayout: Int? = nil) -> any Error {
        guard case .postgres(let server, "42501", let message)? = error as? StoreError else { return error }
        if let olderLayout {
            return StoreError.postgres(
                server: server, code: "42501",
                message: message
                    + ". This database has StoredKit's table layout \(olderLayout), and this client (StoredKit "
                    + "\(PostgresLayout.client) or newer) needs layout \(PostgresLayout.version), which this role may not "
                    + "add (it does not own the tables): have the database's owner run "
                    + "`stored postgres-setup URL --role ROLE --apply` once; it upgrades the tables in place, keeping every row")
        }
        return StoreError.postgres(
            server: server, code: "42501",
            message: message
                + ". StoredKit's schema storedkit is missing, incomplete or not granted to this role, and this role may not "
                + "create it: have the database's owner run `stored postgres-setup URL --role ROLE --apply` once")
    }
}
