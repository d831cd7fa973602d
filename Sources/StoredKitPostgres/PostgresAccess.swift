import StoredKit

/// Which namespaces a role may read or write, enforced by the server: rules in
/// `storedkit.access_rules` (role, pattern, writable), read by one static set of row-level
/// security policies on `storedkit.namespaces`, `storedkit.preferences` and
/// `storedkit.removed_keys` (values, revisions, the migrations' schema version, tombstones).
///
/// A pattern is an exact namespace, or a prefix followed by one trailing `*`; every other `*`,
/// `%` and `_` is literal (matched with `=` and `starts_with`, never `LIKE`). A rule applies to its
/// role and every role that is a member of it, directly or through other roles (``memberRoles``);
/// a rule naming a dropped role applies to nobody.
///
/// Who is under access control: row security is enabled (not forced) on the three tables, so
/// every role is, except the tables' owner (and its members), superusers and `BYPASSRLS` roles,
/// which the server lets past every policy; that is why ``grant(url:role:pattern:writable:)``
/// refuses them. A role under access control with no rule sees no row and writes none, so
/// revoking its last rule never widens its access. Only the owner may change the rules; every
/// role may read the rules that apply to it (a policy on the rules table), which the other
/// policies need.
///
/// ```swift
/// try PostgresAccess.grant(url: "postgresql://owner@db/prefs", role: "support", pattern: "user:*", writable: false)
/// try PostgresAccess.rules(url: "postgresql://owner@db/prefs")  //=> [support user:* read]
/// ```
package enum PostgresAccess {
    /// `SQL` that is true when a rule of the current role matches the namespace in column `column`
    /// (and allows writing, when `writing`). Built from constants only: the policies below are one
    /// static text. The rules a role reads are already only its own (``ownRule``), so the patterns are
    /// gathered by uncorrelated subqueries (the server runs them once per statement, as InitPlans)
    /// and each row only compares its namespace with them: exact patterns with `= ANY`, prefixes (a
    /// pattern's text before its one trailing `*`) with `^@ ANY` (`starts_with`). Operators are
    /// named with their schema, so no search path can swap them. Kept small: the server plans and
    /// starts it in every statement on the tables, several times for an upsert.
    private static func ruleMatches(_ column: String, writing: Bool) -> String {
        let writable = writing ? " WHERE r.writable" : ""
        let prefixes = writing ? " AND r.writable" : ""
        return """
            (\(column) OPERATOR(pg_catalog.=) ANY ((SELECT pg_catalog.array_agg(r.pattern)
                    FROM storedkit.access_rules AS r\(writable))::pg_catalog.text[])
                OR \(column) OPERATOR(pg_catalog.^@) ANY ((SELECT pg_catalog.array_agg(pg_catalog.left(r.pattern, -1))
                    FROM storedkit.access_rules AS r WHERE pg_catalog.right(r.pattern, 1) OPERATOR(pg_catalog.=) '*'\(prefixes))::pg_catalog.text[]))
            """
    }

    /// The roles whose rules apply to the current role: itself and every role it is a member of,
    /// directly or through other roles (what `pg_has_role(…, 'MEMBER')` counts), by name. A role
    /// that is a member of none, the usual device or service role, costs one look at
    /// `pg_auth_members`. PL/pgSQL, so the server keeps its plans for the session; every name in
    /// it is schema-qualified, so a caller's search path cannot change what it returns. Every role
    /// may run it (granted outright, for databases whose default privileges withhold functions).
    static let memberRoles = """
        CREATE OR REPLACE FUNCTION storedkit.member_roles() RETURNS pg_catalog.name[]
            LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
        DECLARE
            me pg_catalog.oid := pg_catalog.to_regrole(pg_catalog.quote_ident(current_user::pg_catalog.text));
        BEGIN
            IF NOT EXISTS (SELECT FROM pg_catalog.pg_auth_members AS a WHERE a.member OPERATOR(pg_catalog.=) me) THEN
                RETURN ARRAY[current_user];
            END IF;
            RETURN ARRAY(
                WITH RECURSIVE m(id) AS (
                    SELECT me
                    UNION SELECT a.roleid FROM pg_catalog.pg_auth_members AS a JOIN m ON a.member OPERATOR(pg_catalog.=) m.id)
                SELECT pg_catalog.pg_get_userbyid(m.id) FROM m);
        END
        $$;
        GRANT EXECUTE ON FUNCTION storedkit.member_roles() TO PUBLIC;
        """

    /// The policy of the rules table: a rule is visible to its role and the role's members. It
    /// compares names with one array the server computes once per scan (``memberRoles``), so the
    /// primary key finds a role's rules among many roles' (one role per device) instead of every
    /// rule being checked; a dropped role's name is nobody's, so its rules apply to nobody. The
    /// owner sees all.
    static let ownRule =
        "role OPERATOR(pg_catalog.=) ANY ((SELECT storedkit.member_roles())::pg_catalog.name[])"

    /// The rules table, its own policy (a role sees the rules that apply to it), and on each of the
    /// three tables row security with a read policy and one write policy per command (so a
    /// `SELECT` is planned with the read policy alone). Part of
    /// ``PostgresLayout/create``: run by the role that owns the schema, at the first open or by
    /// `stored postgres-setup`. Policies are dropped and created again, so a later release may change them.
    static let create = """
        CREATE TABLE IF NOT EXISTS storedkit.access_rules (
            role name NOT NULL,
            pattern text NOT NULL CHECK (pattern <> ''),
            writable boolean NOT NULL,
            granted_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (role, pattern)
        );
        ALTER TABLE storedkit.access_rules ENABLE ROW LEVEL SECURITY;
        \(memberRoles)
        DROP POLICY IF EXISTS storedkit_own_rules ON storedkit.access_rules;
        CREATE POLICY storedkit_own_rules ON storedkit.access_rules FOR SELECT USING (\(ownRule));
        REVOKE ALL ON TABLE storedkit.access_rules FROM PUBLIC;
        GRANT SELECT ON TABLE storedkit.access_rules TO PUBLIC;
        \(policies(on: "storedkit.namespaces"))
        \(policies(on: "storedkit.preferences"))
        \(policies(on: "storedkit.removed_keys"))
        """

    /// Row security on `table`: rows of namespaces a rule lets the role read are visible; rows of
    /// namespaces a writable rule covers may be inserted, updated and deleted.
    private static func policies(on table: String) -> String {
        """
        ALTER TABLE \(table) ENABLE ROW LEVEL SECURITY;
        DROP POLICY IF EXISTS storedkit_read ON \(table);
        DROP POLICY IF EXISTS storedkit_write ON \(table);
        DROP POLICY IF EXISTS storedkit_insert ON \(table);
        DROP POLICY IF EXISTS storedkit_update ON \(table);
        DROP POLICY IF EXISTS storedkit_delete ON \(table);
        CREATE POLICY storedkit_read ON \(table) FOR SELECT USING (\(ruleMatches("namespace", writing: false)));
        CREATE POLICY storedkit_insert ON \(table) FOR INSERT WITH CHECK (\(ruleMatches("namespace", writing: true)));
        CREATE POLICY storedkit_update ON \(table) FOR UPDATE USING (\(ruleMatches("namespace", writing: true)))
            WITH CHECK (\(ruleMatches("namespace", writing: true)));
        CREATE POLICY storedkit_delete ON \(table) FOR DELETE USING (\(ruleMatches("namespace", writing: true)));
        """
    }

    /// `$1` namespace: the current role, whether it is under access control at all (row security
    /// active on the values), whether a rule lets it read `$1`, whether one lets it write, and the
    /// patterns of its rules (for the message of a refused open).
    static let access = """
        SELECT current_user, pg_catalog.row_security_active('storedkit.preferences'),
            \(ruleMatches("$1::text", writing: false)), \(ruleMatches("$1::text", writing: true)),
            (SELECT string_agg(r.pattern || CASE WHEN r.writable THEN ' (read-write)' ELSE ' (read)' END, ', '
                ORDER BY r.pattern) FROM storedkit.access_rules AS r WHERE \(ownRule))
        """

    /// What a role may do with one namespace, as ``access`` found it.
    enum Level: Equatable {
        /// Not under access control (the owner, a superuser, a `BYPASSRLS` role).
        case unrestricted
        case readWrite
        case read
        /// No rule covers the namespace: the message names the role and its rules.
        case none(role: String, rules: String?)
    }

    /// The level of `namespace` for the connection's role.
    static func level(of namespace: String, _ connection: PostgresConnection) throws -> Level {
        let row = try connection.query(access, [namespace]).first ?? []
        guard row.count == 5, row[1] == "t" else { return .unrestricted }
        if row[3] == "t" { return .readWrite }
        if row[2] == "t" { return .read }
        return .none(role: row[0] ?? "?", rules: row[4])
    }

    /// The error of an open (or read) that no rule allows.
    static func refusal(namespace: String, role: String, rules: String?, server: String) -> StoreError {
        .postgres(
            server: server, code: "42501",
            message: "role '\(role)' has no access rule for namespace '\(namespace)' "
                + (rules.map { "(its rules: \($0))" } ?? "(it has no rule at all)")
                + "; the database's owner grants one with `stored access URL grant \(role) PATTERN`")
    }

    /// What a role whose rule only reads lacks to write `namespace`, as ``Backend/missingWritePrivilege`` says it.
    static func readOnlyRule(_ namespace: String) -> String {
        "a read-write access rule for namespace '\(namespace)' (its rule allows reading only)"
    }
}
