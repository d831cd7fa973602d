import StoredKit

/// What a DBA runs once so that application roles need no ownership: the tables, owned by the
/// role that runs it, and the grants for an application role and, optionally, a read-only role
/// (`stored postgres-setup`). Role names are never spliced into SQL text: ``apply(url:role:readOnlyRole:)``
/// binds them with `set_config`, and the script quotes them with `format('%I')`.
///
/// ```swift
/// print(PostgresSetup.script(role: "app", readOnlyRole: "reporting"))
/// try PostgresSetup.apply(url: "postgresql://owner@db/prefs", role: "app", readOnlyRole: nil)
/// ```
package enum PostgresSetup {
    /// The grants, reading the role names from the settings `storedkit.setup_role` and
    /// `storedkit.setup_read_only_role` (empty: none). The application role gets `SELECT, INSERT,
    /// UPDATE, DELETE` on the three tables and `EXECUTE` on the one function a hand edit calls,
    /// nothing more; `EXECUTE` is revoked from `PUBLIC` on both functions; the read-only role
    /// gets `SELECT` on the tables.
    static let grants = """
        DO $setup$
        DECLARE
            app text := coalesce(current_setting('storedkit.setup_role', true), '');
            reader text := coalesce(current_setting('storedkit.setup_read_only_role', true), '');
            schema_name text := current_schema();
        BEGIN
            EXECUTE format('REVOKE EXECUTE ON FUNCTION %I.storedkit_bump_for_hand_edit(text), %I.storedkit_record_hand_edits() FROM PUBLIC',
                schema_name, schema_name);
            IF app <> '' THEN
                EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', schema_name, app);
                EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE %I.storedkit_namespaces, %I.storedkit_preferences, %I.storedkit_removed_keys TO %I',
                    schema_name, schema_name, schema_name, app);
                EXECUTE format('GRANT EXECUTE ON FUNCTION %I.storedkit_bump_for_hand_edit(text) TO %I', schema_name, app);
            END IF;
            IF reader <> '' THEN
                EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', schema_name, reader);
                EXECUTE format('GRANT SELECT ON TABLE %I.storedkit_namespaces, %I.storedkit_preferences, %I.storedkit_removed_keys TO %I',
                    schema_name, schema_name, schema_name, reader);
            END IF;
        END
        $setup$;
        """

    /// The whole script for `psql`, run by the owning role: the role names as settings (quoted as
    /// SQL string literals), the tables, the grants, in one transaction.
    package static func script(role: String, readOnlyRole: String?) -> String {
        """
        -- StoredKit setup: run as the role that is to own StoredKit's tables (psql -1 -f or --apply).
        BEGIN;
        SELECT set_config('storedkit.setup_role', \(literal(role)), true);
        SELECT set_config('storedkit.setup_read_only_role', \(literal(readOnlyRole ?? "")), true);
        \(PostgresSchema.lockSchema);
        \(PostgresSchema.create)
        \(grants)
        COMMIT;
        """
    }

    /// Runs the script on `url` as its role, the names bound as parameters; throws the server's
    /// error (a role that does not exist, a schema the role may not create in).
    package static func apply(url: String, role: String, readOnlyRole: String?) throws {
        let connection = try PostgresConnection(address: PostgresAddress(url))
        try connection.run("BEGIN")
        do {
            try connection.query("SELECT set_config('storedkit.setup_role', $1, true)", [role])
            try connection.query("SELECT set_config('storedkit.setup_read_only_role', $1, true)", [readOnlyRole ?? ""])
            try connection.query(PostgresSchema.lockSchema)
            try connection.run(PostgresSchema.create)
            try connection.run(grants)
            try connection.run("COMMIT")
        } catch {
            connection.rollback()
            throw error
        }
    }

    /// `text` as an SQL string literal (`standard_conforming_strings`, on since PostgreSQL 9.1).
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `error` with what to do when it says the role may not create or change StoredKit's tables.
    static func explained(_ error: any Error) -> any Error {
        guard case .postgres(let server, "42501", let message)? = error as? StoreError else { return error }
        return StoreError.postgres(
            server: server, code: "42501",
            message: message
                + ". StoredKit's tables are missing or older than this version, and this role may not create or change them: "
                + "have their owner run `stored postgres-setup URL --role ROLE --apply` once")
    }
}
