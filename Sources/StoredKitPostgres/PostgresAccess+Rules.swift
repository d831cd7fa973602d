import StoredKit

// Granting, revoking and listing rules (`stored access`), run by the role that owns StoredKit's
// schema. Roles and patterns are bound parameters, or quoted with `format('%I')` inside the
// server; nothing a user typed is spliced into SQL text.
extension PostgresAccess {
    /// One rule: `role` may read (and, when `writable`, write) the namespaces `pattern` covers.
    ///
    /// ```swift
    /// PostgresAccess.Rule(role: "support", pattern: "user:*", writable: false).description  //=> "support user:* read"
    /// ```
    package struct Rule: Sendable, Hashable, CustomStringConvertible {
        package let role: String
        package let pattern: String
        package let writable: Bool
        /// For a read-only rule: the read-write rules that still let its role write namespaces it
        /// covers (the role's own, or those of a role it is a member of), since rules add up. Empty:
        /// the rule means what it says.
        package var shadows: [Shadow] = []

        package var description: String { "\(role) \(pattern) \(writable ? "readwrite" : "read")" }
    }

    /// A read-write rule under which a read-only rule limits nothing, or not everywhere.
    ///
    /// ```swift
    /// let wider = PostgresAccess.Rule(role: "helpdesk", pattern: "*", writable: true)
    /// PostgresAccess.Shadow(rule: wider, coversAll: true).rule.description  //=> "helpdesk * readwrite"
    /// ```
    package struct Shadow: Sendable, Hashable {
        /// The read-write rule.
        package let rule: Rule
        /// Whether it covers every namespace the read-only rule covers (else only some of them).
        package let coversAll: Bool
    }

    /// The read-only rules under read-write rules that apply to their role too (its own, or those of
    /// a role it is a member of, as `pg_has_role(…, 'MEMBER')` counts membership, as the policies
    /// do): `$1` role and `$2` pattern of one rule, or NULL for every rule the connecting role sees.
    /// Columns: the read-only rule's role and pattern, the read-write rule's role and pattern,
    /// whether the read-write rule covers every namespace the read-only one does. A rule that
    /// overlaps only partly is listed too: the read-only rule is then untrue for some namespaces.
    static let shadowingRules = """
        SELECT r.role, r.pattern, w.role, w.pattern, covers FROM storedkit.access_rules AS r
            JOIN storedkit.access_rules AS w ON w.writable AND NOT r.writable AND (w.role = r.role
                OR pg_catalog.pg_has_role(pg_catalog.to_regrole(pg_catalog.quote_ident(r.role::text)),
                    pg_catalog.to_regrole(pg_catalog.quote_ident(w.role::text)), 'MEMBER'))
            CROSS JOIN LATERAL (SELECT CASE WHEN pg_catalog.right(r.pattern, 1) = '*'
                THEN pg_catalog.right(w.pattern, 1) = '*' AND pg_catalog.left(r.pattern, -1) LIKE w.like_pattern
                ELSE r.pattern LIKE w.like_pattern END) AS c(covers)
            WHERE ($1::name IS NULL OR (r.role = $1::name AND r.pattern = $2::text))
                AND (covers OR w.pattern LIKE r.like_pattern)
            ORDER BY r.role, r.pattern, w.role, w.pattern
        """

    /// The read-write rules shadowing each read-only rule (``shadowingRules``), by the read-only rule's role and pattern.
    static func shadows(of rule: (role: String, pattern: String)?, _ connection: PostgresConnection) throws
        -> [Pair: [Shadow]]
    {
        var shadows: [Pair: [Shadow]] = [:]
        for row in try connection.query(shadowingRules, [rule?.role, rule?.pattern]) {
            guard row.count == 5, let role = row[0], let pattern = row[1], let wider = row[2], let widerPattern = row[3]
            else { continue }
            let shadow = Shadow(rule: Rule(role: wider, pattern: widerPattern, writable: true), coversAll: row[4] == "t")
            shadows[Pair(role: role, pattern: pattern), default: []].append(shadow)
        }
        return shadows
    }

    /// A rule's key: its role and pattern.
    struct Pair: Hashable {
        let role: String
        let pattern: String
    }

    /// Whether `role` would get past every policy, and why: `$1` role. Columns: whether it exists,
    /// superuser, `BYPASSRLS`, member of the tables' owner, the owner's name, the superuser or
    /// `BYPASSRLS` roles it is a member of.
    static let bypassCheck = """
        SELECT g.oid IS NOT NULL, g.rolsuper, g.rolbypassrls,
            pg_catalog.pg_has_role(g.oid, c.relowner, 'MEMBER'), pg_catalog.pg_get_userbyid(c.relowner),
            (SELECT string_agg(s.rolname, ', ' ORDER BY s.rolname) FROM pg_catalog.pg_roles AS s
                WHERE (s.rolsuper OR s.rolbypassrls) AND s.oid <> g.oid AND pg_catalog.pg_has_role(g.oid, s.oid, 'MEMBER'))
            FROM pg_catalog.pg_class AS c LEFT JOIN pg_catalog.pg_roles AS g ON g.rolname = $1
            WHERE c.oid = 'storedkit.preferences'::regclass
        """

    /// `$1` role, `$2` pattern, `$3` writable: adds the rule, or changes whether it writes.
    static let insertRule = """
        INSERT INTO storedkit.access_rules (role, pattern, writable) VALUES ($1, $2, $3::boolean)
            ON CONFLICT (role, pattern) DO UPDATE SET writable = excluded.writable, granted_at = now()
        """

    /// Lets `role` read (or, when `writable`, read and write) the namespaces `pattern` covers:
    /// adds the rule and grants the table privileges that needs (as `stored postgres-setup` does
    /// for an application or read-only role). Throws, changing nothing, when `role` does not
    /// exist, would bypass the policies (the tables' owner or a member of it, a superuser, a
    /// `BYPASSRLS` role, or a member of one), the pattern is empty or holds U+0000, or the
    /// connecting role does not own the schema.
    ///
    /// Returns the rule as granted: a read-only one with the read-write rules that still let the
    /// role write namespaces it covers (``Rule/shadows``), since rules add up.
    ///
    /// ```swift
    /// try PostgresAccess.grant(url: "postgresql://owner@db/prefs", role: "team_blue", pattern: "team:blue:*", writable: true)
    /// try PostgresAccess.grant(url: "postgresql://owner@db/prefs", role: "app", pattern: "user:*", writable: false)
    ///     .shadows.map(\.rule.description)  //=> ["app * readwrite"] after `stored postgres-setup --role app`
    /// ```
    @discardableResult
    package static func grant(url: String, role: String, pattern: String, writable: Bool) throws -> Rule {
        let connection = try PostgresConnection(address: PostgresAddress(url))
        let server = connection.address.description
        try validate(role: role, pattern: pattern, server: server)
        try ensureLayout(connection)
        try connection.run("BEGIN")
        do {
            if let reason = try bypassReason(role: role, connection) {
                throw StoreError.postgres(
                    server: server, code: "22023",
                    message: "role '\(role)' \(reason), so the server lets it past every access rule: a rule would limit "
                        + "nothing. Grant rules to a role without these attributes (and not a member of such a role)")
            }
            try connection.query(insertRule, [role, pattern, writable ? "true" : "false"])
            try connection.query("SELECT set_config('storedkit.setup_role', $1, true)", [writable ? role : ""])
            try connection.query("SELECT set_config('storedkit.setup_read_only_role', $1, true)", [writable ? "" : role])
            try connection.run(PostgresSetup.grants)
            var granted = Rule(role: role, pattern: pattern, writable: writable)
            if !writable { granted.shadows = try shadows(of: (role, pattern), connection).values.first ?? [] }
            try connection.run("COMMIT")
            return granted
        } catch {
            connection.rollback()
            throw ownerNeeded(error)
        }
    }

    /// Removes the rule of `role` for exactly `pattern`; returns whether there was one. Other
    /// rules of the role stay; table privileges stay (with no rule, they reach no row).
    ///
    /// ```swift
    /// try PostgresAccess.revoke(url: "postgresql://owner@db/prefs", role: "support", pattern: "user:*")  //=> true
    /// ```
    package static func revoke(url: String, role: String, pattern: String) throws -> Bool {
        let connection = try PostgresConnection(address: PostgresAddress(url))
        try validate(role: role, pattern: pattern, server: connection.address.description)
        try ensureLayout(connection)
        do {
            return try !connection.query(
                "DELETE FROM storedkit.access_rules WHERE role = $1 AND pattern = $2 RETURNING 1", [role, pattern]
            ).isEmpty
        } catch {
            throw ownerNeeded(error)
        }
    }

    /// Every rule the connecting role may see (all of them for the owner), by role and pattern; a
    /// read-only rule with the read-write rules that shadow it (``Rule/shadows``).
    ///
    /// ```swift
    /// try PostgresAccess.rules(url: "postgresql://owner@db/prefs").map(\.description)  //=> ["support user:* read"]
    /// ```
    package static func rules(url: String) throws -> [Rule] {
        let connection = try PostgresConnection(address: PostgresAddress(url))
        try ensureLayout(connection)
        let shadows = try shadows(of: nil, connection)
        return try connection.query("SELECT role, pattern, writable FROM storedkit.access_rules ORDER BY role, pattern")
            .compactMap { row in
                guard row.count == 3, let role = row[0], let pattern = row[1] else { return nil }
                var rule = Rule(role: role, pattern: pattern, writable: row[2] == "t")
                rule.shadows = shadows[Pair(role: role, pattern: pattern)] ?? []
                return rule
            }
    }

    /// The connecting role when the access rules limit what it sees (nil: it sees every row, as the
    /// tables' owner, a superuser or a `BYPASSRLS` role does), so a tool that finds nothing can say
    /// whether there is nothing or only nothing this role may see.
    ///
    /// ```swift
    /// try PostgresAccess.limitedRole(url: "postgresql://support@db/prefs")  //=> "support"
    /// ```
    package static func limitedRole(url: String) throws -> String? {
        let connection = try PostgresConnection(address: PostgresAddress(url))
        guard try PostgresLayout.check(connection) != nil else { return nil }
        let row = try connection.query(
            "SELECT current_user, pg_catalog.row_security_active('storedkit.preferences')"
        ).first
        guard let row, row.count == 2, row[1] == "t" else { return nil }
        return row[0]
    }

    /// Why `role` would bypass the policies (nil: it would not); throws when it does not exist.
    static func bypassReason(role: String, _ connection: PostgresConnection) throws -> String? {
        let row = try connection.query(bypassCheck, [role]).first ?? []
        guard row.count == 6, row[0] == "t" else {
            throw StoreError.postgres(
                server: connection.address.description, code: "22023",
                message: "role '\(role)' does not exist; create it first (CREATE ROLE)")
        }
        if row[1] == "t" { return "is a superuser" }
        if row[2] == "t" { return "has BYPASSRLS" }
        if row[3] == "t" { return "owns StoredKit's tables (or is a member of their owner '\(row[4] ?? "?")')" }
        if let roles = row[5] { return "is a member of \(roles), a superuser or BYPASSRLS role" }
        return nil
    }

    private static func validate(role: String, pattern: String, server: String) throws {
        guard !role.isEmpty, !pattern.isEmpty, !role.utf8.contains(0), !pattern.utf8.contains(0) else {
            throw StoreError.postgres(
                server: server, code: "22023", message: "a role and a pattern must be non-empty and cannot hold U+0000")
        }
        guard pattern.utf8.count <= PostgresBackend.maximumNamespaceBytes + 1 else {
            throw StoreError.postgres(
                server: server, code: "22023",
                message: "the pattern is \(pattern.utf8.count) bytes; no namespace is longer than "
                    + "\(PostgresBackend.maximumNamespaceBytes)")
        }
    }

    /// Makes sure the layout (with the rules table) is there: the same check a store's open does.
    private static func ensureLayout(_ connection: PostgresConnection) throws {
        guard try PostgresLayout.check(connection) == nil else { return }
        throw StoreError.postgres(
            server: connection.address.description, code: "42P01",
            message: "StoredKit's schema storedkit (with its access rules) is not in this database: "
                + "run `stored postgres-setup URL --role ROLE --apply` first, as the role that is to own it")
    }

    /// `error`, with what to do when the connecting role may not change the rules.
    private static func ownerNeeded(_ error: any Error) -> any Error {
        guard case .postgres(let server, "42501", let message)? = error as? StoreError else { return error }
        return StoreError.postgres(
            server: server, code: "42501",
            message: message + ". Only the role that owns StoredKit's schema (the one that ran `stored postgres-setup`) "
                + "changes access rules: run `stored access` as that role")
    }
}
