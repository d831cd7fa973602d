import StoredKit

/// Which namespaces a role may read or write, enforced by the server: rules in
/// `storedkit.access_rules` (role, pattern, writable), read by one static set of row-level
/// security policies on `storedkit.namespaces`, `storedkit.preferences` and
/// `storedkit.removed_keys` (values, revisions, the migrations' schema version, tombstones).
///
/// A pattern is an exact namespace, or a prefix followed by one trailing `*`; every other `*`,
/// `%`, `_` and `\` is literal (each rule's ``likePattern`` escapes them). A rule applies to its
/// role and every role that is a member of it, directly or through other roles (``memberRoles``).
/// Rules name roles, not OIDs: a dropped role's rules apply to nobody until a role of the same name
/// is created, which then has them (revoke them with the role, `stored access URL revoke`).
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
    /// static text. The server plans and starts it in every statement on the tables, about ten
    /// times for a one-key write, so each use is one uncorrelated subquery (run once per statement, as
    /// an InitPlan) whose patterns every row matches with `LIKE ANY`, a built-in operator (no
    /// function call per row):
    /// - first the role's own rules, found by the primary key with no function call: the usual
    ///   device or service role stops here;
    /// - only if none matches, its groups' rules (``groupPatterns``), which walks its memberships.
    /// Operators are named with their schema, so no search path can swap them.
    private static func ruleMatches(_ column: String, writing: Bool) -> String {
        let writable = writing ? " AND r.writable" : ""
        return """
            (\(column) OPERATOR(pg_catalog.~~) ANY (ARRAY(SELECT r.like_pattern FROM storedkit.access_rules AS r
                    WHERE r.role OPERATOR(pg_catalog.=) current_user\(writable)))
                OR \(column) OPERATOR(pg_catalog.~~) ANY ((SELECT storedkit.group_patterns(\(writing)))::pg_catalog.text[]))
            """
    }

    /// What `LIKE` matches a rule's pattern with, kept by the server in the rules table's generated
    /// column `like_pattern`: the pattern with `\`, `%` and `_` escaped (`LIKE`'s default escape is
    /// `\`, whatever `standard_conforming_strings` says), its one trailing `*` made `%`. So
    /// `namespace LIKE like_pattern` holds exactly when the namespace is the pattern, or starts
    /// with the text before its trailing `*`.
    static let likePattern: String = {
        let escaped = #"""
            pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pattern, E'\\', E'\\\\'), '%', E'\\%'), '_', E'\\_')
            """#
        // `*` is not escaped, so the escaped text still ends with the pattern's trailing `*`.
        return """
            CASE WHEN pg_catalog.right(pattern, 1) OPERATOR(pg_catalog.=) '*'
                THEN pg_catalog.left(\(escaped), -1) OPERATOR(pg_catalog.||) '%' ELSE \(escaped) END
            """
    }()

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

    /// The `like_pattern`s of the rules of the roles the current role is a member of (its own
    /// included), the writable ones only when `writing`: the second half of ``ruleMatches(_:writing:)``,
    /// run only when none of the role's own rules matched. It runs as the calling role (not
    /// `SECURITY DEFINER`), so it reads only the rules ``ownRule`` shows that role, and like
    /// ``memberRoles`` it names everything with its schema. The roles are computed inside the
    /// query, not passed in a variable: PL/pgSQL would plan a query on an array variable again at
    /// every call (its guess of ten elements makes the reusable plan look dearer), 90 µs each.
    static let groupPatterns = """
        CREATE OR REPLACE FUNCTION storedkit.group_patterns(writing boolean) RETURNS pg_catalog.text[]
            LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
        BEGIN
            RETURN ARRAY(SELECT r.like_pattern FROM storedkit.access_rules AS r
                WHERE r.role OPERATOR(pg_catalog.=) ANY (storedkit.member_roles()) AND (r.writable OR NOT writing));
        END
        $$;
        GRANT EXECUTE ON FUNCTION storedkit.group_patterns(boolean) TO PUBLIC;
        """

    /// The policy of the rules table: a rule is visible to its role and the role's members. The
    /// role's own rules pass on the name alone; any other is checked with `pg_has_role`, so a
    /// dropped role's rules apply to nobody (until a role of its name is created). The policies'
    /// subqueries find their rows by the primary key first (``ruleMatches(_:writing:)``,
    /// ``groupPatterns``), so this runs on a role's few rules, never on every role's. The owner
    /// sees all.
    static let ownRule = """
        role OPERATOR(pg_catalog.=) current_user
            OR pg_catalog.pg_has_role(pg_catalog.to_regrole(pg_catalog.quote_ident(role::pg_catalog.text)), 'MEMBER')
        """

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
        ALTER TABLE storedkit.access_rules ADD COLUMN IF NOT EXISTS like_pattern text
            GENERATED ALWAYS AS (\(likePattern)) STORED;
        ALTER TABLE storedkit.access_rules ENABLE ROW LEVEL SECURITY;
        \(memberRoles)
        \(groupPatterns)
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
                ORDER BY r.pattern) FROM storedkit.access_rules AS r
                WHERE r.role OPERATOR(pg_catalog.=) ANY ((SELECT storedkit.member_roles())::pg_catalog.name[]))
        """

    /// What a role may do with one namespace, as ``access`` found it.
    enum Level: Equatable {
        /// Not under access control (the owner, a superuser, a `BYPASSRLS` role).
        case unrestricted
        case readWrite
        /// A read-only rule covers the namespace, and no read-write one.
        case read(role: String)
        /// No rule covers the namespace: the message names the role and its rules.
        case none(role: String, rules: String?)
    }

    /// The level of `namespace` for the connection's role.
    static func level(of namespace: String, _ connection: PostgresConnection) throws -> Level {
        let row = try connection.query(access, [namespace]).first ?? []
        guard row.count == 5, row[1] == "t" else { return .unrestricted }
        if row[3] == "t" { return .readWrite }
        if row[2] == "t" { return .read(role: row[0] ?? "?") }
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

    /// The error of a write that a read-only rule refuses (the rule became read-only since the open).
    static func readOnlyRefusal(namespace: String, role: String, server: String) -> StoreError {
        .postgres(
            server: server, code: "42501",
            message: "role '\(role)' may only read namespace '\(namespace)' (its rule is read-only); the database's "
                + "owner grants a read-write one with `stored access URL grant \(role) PATTERN`")
    }

    /// What a role whose rule only reads lacks to write `namespace`, as ``Backend/missingWritePrivilege`` says it.
    static func readOnlyRule(_ namespace: String, role: String) -> String {
        "a read-write access rule for namespace '\(namespace)' (role '\(role)' has a read-only one; the database's owner "
            + "grants one with `stored access URL grant \(role) PATTERN`)"
    }
}
