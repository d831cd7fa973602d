import StoredKit
import StoredKitPostgres

// `access`: which namespaces a role may read or write on a shared PostgreSQL server, enforced by
// the server's row-level security (etcd's key-prefix permissions, for namespaces).
extension Command {
    static let access = Command(
        name: "access",
        arguments: "URL grant|revoke|list [ROLE PATTERN]",
        summary: "Limit which namespaces a PostgreSQL role may read or write",
        discussion: """
            Run as the role that owns StoredKit's schema (the one that ran postgres-setup). grant lets
            ROLE (and every member of it) read and write the namespaces PATTERN covers, or only read
            them with --read-only, and grants the table privileges that needs. PATTERN is an exact
            namespace, or a prefix followed by one trailing '*' ('user:*', 'team:blue:*'); every other
            '*', '%' and '_' is literal. Every role but the tables' owner, superusers and BYPASSRLS roles
            is limited to its rules, and a role with no rule sees no namespace at all; grant refuses
            those roles, since the server lets them past every rule. revoke removes one rule; list
            prints every rule as 'ROLE PATTERN read|readwrite'. Rules add up: a read-only rule under a
            read-write one of the same role, or of a role it is a member of, limits nothing there;
            grant says so and names the revoke to run, and list marks it '(still writable through
            ...)'. postgres-setup gives its --role
            'readwrite *' and its --read-only-role 'read *' when they have no rule yet.
            """,
        options: [OptionSpec("read-only", "With grant: ROLE may only read the namespaces PATTERN covers.")],
        examples: [
            "stored access postgresql://owner@db/prefs grant support 'user:*' --read-only",
            "stored access postgresql://owner@db/prefs grant team_blue 'team:blue:*'",
            "stored access postgresql://owner@db/prefs revoke support 'user:*'",
            "stored access postgresql://owner@db/prefs list",
        ],
        positionalCount: 2...4
    ) { arguments, console in
        let server = try PostgresLocation(server: arguments.positionals[0], for: "access")
        let action = arguments.positionals[1]
        switch action {
        case "list":
            guard arguments.positionals.count == 2 else { throw CLIError.usage("access", "list takes no more arguments") }
            let rules = try PostgresAccess.rules(url: server.url)
            guard !rules.isEmpty else {
                // A limited role sees only the rules that apply to it: others may have some.
                if let role = try PostgresAccess.limitedRole(url: server.url) {
                    return console.error(
                        "no access rule applies to '\(role)' on \(server.server), so it sees no namespace; the "
                            + "database's owner sees every role's rules with 'stored access URL list'.")
                }
                return console.error(
                    "\(server.server) has no access rule: only its owner, superusers and BYPASSRLS roles see namespaces.")
            }
            console.print(rules.map(listed).joined(separator: "\n"))
        case "grant", "revoke":
            guard arguments.positionals.count == 4 else {
                throw CLIError.usage("access", "\(action) takes a ROLE and a PATTERN")
            }
            let role = arguments.positionals[2]
            let pattern = arguments.positionals[3]
            if action == "grant" {
                let writable = !arguments.has("read-only")
                let granted = try PostgresAccess.grant(url: server.url, role: role, pattern: pattern, writable: writable)
                guard !granted.shadows.isEmpty else {
                    return console.print(
                        "'\(role)' may now \(writable ? "read and write" : "only read") the namespaces '\(pattern)' covers on "
                            + "\(server.server).")
                }
                // Rules add up: under a read-write rule the new one limits nothing. Say what is true.
                console.print("Added the rule '\(granted)' on \(server.server); '\(role)' may read the namespaces it covers.")
                console.error(stillWrites(granted, on: server.server))
            } else if try PostgresAccess.revoke(url: server.url, role: role, pattern: pattern) {
                console.print("Removed the rule of '\(role)' for '\(pattern)' on \(server.server).")
            } else {
                throw CLIError(
                    .keyNotFound,
                    "'\(role)' has no rule for exactly '\(pattern)' on \(server.server). "
                        + "Run 'stored access \(server.server) list' to see the rules.")
            }
        default:
            throw CLIError.usage("access", "'\(action)' is not grant, revoke or list")
        }
    }
}

/// A line of `access list`: the rule, and for a read-only one the read-write rules that still let its role write.
private func listed(_ rule: PostgresAccess.Rule) -> String {
    guard !rule.shadows.isEmpty else { return rule.description }
    let wider = rule.shadows.map { "'\($0.rule)'" }.joined(separator: ", ")
    return "\(rule) (still writable through \(wider))"
}

/// Why a read-only rule just granted does not make its role read-only, and the `revoke` (or the
/// membership to end) that would.
private func stillWrites(_ rule: PostgresAccess.Rule, on server: String) -> String {
    let all = rule.shadows.contains(where: \.coversAll)
    let reasons = rule.shadows.map { shadow in
        shadow.rule.role == rule.role
            ? "'\(shadow.rule)'" : "'\(shadow.rule)' ('\(rule.role)' is a member of '\(shadow.rule.role)')"
    }
    let remedies = rule.shadows.map { shadow in
        let revoke = "stored access \(server) revoke \(shellQuoted(shadow.rule.role)) \(shellQuoted(shadow.rule.pattern))"
        guard shadow.rule.role != rule.role else { return revoke }
        return revoke + " (it limits every member of '\(shadow.rule.role)'), or REVOKE "
            + "\(shadow.rule.role) FROM \(rule.role)"
    }
    return "'\(rule.role)' may still write \(all ? "the" : "some of the") namespaces '\(rule.pattern)' covers: rules add "
        + "up, and \(reasons.joined(separator: ", ")) \(reasons.count > 1 ? "let" : "lets") it write them. For it to only read them, remove the wider "
        + "rule\(remedies.count > 1 ? "s" : ""): \(remedies.joined(separator: "; ")) (then grant the read-write rules it "
        + "still needs)."
}

/// `text` as one shell word: single-quoted unless it is plain.
private func shellQuoted(_ text: String) -> String {
    if !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || "-_.:/@".contains($0) }) { return text }
    return "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
}
