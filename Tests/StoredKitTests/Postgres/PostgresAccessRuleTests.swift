import Foundation
import StoredKitTestSupport
import Synchronization
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// Namespace access rules (`PostgresAccess`), enforced by the server's row-level security, with
/// real roles in a database of their own owned by a non-superuser: a support role that reads
/// `user:*`, a team role that reads and writes `team:blue:*`, a device role that reads and writes
/// `user:42`, and a role whose pattern holds `%` and `_`, which stay literal.
@Suite("PostgreSQL namespace access rules", .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresAccessRuleTests {
    @Test func grantRefusesEveryRoleThatBypassesThePoliciesAndSaysWhy() throws {
        let database = try AccessDatabase()
        defer { database.drop() }
        let refusals: [(role: String, reason: String)] = [
            (database.owner, "owns StoredKit's tables"), ("postgres", "is a superuser"),
            (database.bypasser, "has BYPASSRLS"), (database.bypassMember, "is a member of \(database.bypasser)"),
            (database.ownerMember, "owns StoredKit's tables"),
        ]
        for (role, reason) in refusals {
            #expect {
                try PostgresAccess.grant(url: database.ownerURL, role: role, pattern: "user:*", writable: false)
            } throws: { error in
                guard case .postgres(_, "22023", let message)? = error as? StoreError else { return false }
                return message.contains("'\(role)' \(reason)") && message.contains("past every access rule")
            }
        }
        #expect(throws: StoreError.self) {
            try PostgresAccess.grant(url: database.ownerURL, role: "no_such_role_29", pattern: "x", writable: true)
        }
        // Only the owner changes rules: a limited role may not grant itself more.
        #expect {
            try PostgresAccess.grant(url: database.url(as: database.device), role: database.device, pattern: "*", writable: true)
        } throws: { error in
            guard case .postgres(_, let code, let message)? = error as? StoreError else { return false }
            return (code == "22023" || code == "42501") && message.contains("owns")
        }
        let rules = try PostgresAccess.rules(url: database.ownerURL).map(\.description).sorted()
        #expect(
            rules == [
                "\(database.device) user:42 readwrite", "\(database.literal) a%b_c* readwrite",
                "\(database.literal) x_y readwrite", "\(database.support) user:* read", "\(database.team) team:blue:* readwrite",
            ])
    }

    @Test func eachRoleReadsAndWritesOnlyTheNamespacesItsRulesCover() throws {
        let database = try AccessDatabase()
        defer { database.drop() }
        let all = ["user:42", "user:43", "team:blue:1", "team:red:1", "a%b_c:1", "axbyc:1", "a%b_cd", "x_y", "xzy"]
        for namespace in all {
            let owner = try PreferenceStore(.postgres(url: database.ownerURL, namespace: namespace), durability: .immediate)
            owner.set("in \(namespace)", forKey: "secret")
            owner.set(1, forKey: "gone")
            owner.removeValue(forKey: "gone")  // a tombstone in every namespace
        }
        let allowed: [(role: String, namespaces: [String], writable: Bool)] = [
            (database.support, ["user:42", "user:43"], false), (database.team, ["team:blue:1"], true),
            (database.device, ["user:42"], true), (database.literal, ["a%b_c:1", "a%b_cd", "x_y"], true),
        ]
        for (role, namespaces, writable) in allowed {
            let url = database.url(as: role)
            for namespace in all {
                guard namespaces.contains(namespace) else {
                    #expect {
                        _ = try PreferenceStore(.postgres(url: url, namespace: namespace))
                    } throws: { error in
                        guard case .postgres(_, "42501", let message)? = error as? StoreError else { return false }
                        return message.contains("role '\(role)' has no access rule for namespace '\(namespace)'")
                    }
                    continue
                }
                let store = try PreferenceStore(.postgres(url: url, namespace: namespace), durability: .immediate)
                #expect(store.value(forKey: "secret", as: String.self) == "in \(namespace)", "\(role) \(namespace)")
                #expect(store.isReadOnly == !writable, "\(role) \(namespace)")
                store.set("by \(role)", forKey: "note")
                #expect(store.value(forKey: "note", as: String.self) == (writable ? "by \(role)" : nil))
            }
            // `stored namespaces` lists only what the rules cover.
            let listed = try PostgresNamespaceSummary.all(url: url).map(\.name)
            #expect(listed == namespaces.sorted(), "\(role)")

            // The server itself, asked directly by the role: no other namespace's values, tombstones,
            // revisions or tokens, and no write outside its rules.
            let raw = try PostgresConnection(address: PostgresAddress(url))
            for table in ["storedkit.preferences", "storedkit.removed_keys", "storedkit.namespaces"] {
                let seen = try raw.query("SELECT DISTINCT namespace FROM \(table) ORDER BY 1").compactMap { $0.first ?? nil }
                #expect(seen == namespaces.sorted(), "\(role) \(table)")
            }
            let updated = try? raw.query(
                "UPDATE storedkit.preferences SET string_value = 'forged' WHERE namespace = 'team:red:1' RETURNING 1")
            #expect(updated?.isEmpty ?? true)
            #expect(throws: StoreError.self) {
                try raw.query(
                    "INSERT INTO storedkit.preferences (namespace, key, type, string_value) VALUES ('team:red:1', 'k', 'string', 'x')"
                )
            }
        }
        // Nothing outside the rules changed.
        let owner = try PostgresConnection(address: PostgresAddress(database.ownerURL))
        let foreign = try owner.query(
            "SELECT namespace, string_value FROM storedkit.preferences WHERE namespace = 'team:red:1' ORDER BY key")
        #expect(foreign == [["team:red:1", "in team:red:1"]])
    }

    @Test func aRuleMadeReadOnlyWhileAClientRunsRefusesItsNextWriteByName() throws {
        let database = try AccessDatabase()
        defer { database.drop() }
        let store = try PreferenceStore(
            .postgres(url: database.url(as: database.device), namespace: "user:42"), durability: .immediate)
        store.set(1, forKey: "n")
        #expect(try PostgresAccess.revoke(url: database.ownerURL, role: database.device, pattern: "user:42"))
        try PostgresAccess.grant(url: database.ownerURL, role: database.device, pattern: "user:42", writable: false)

        store.set(2, forKey: "n")
        #expect(store.state.withLock { $0.pending.isEmpty })
        #expect(store.value(forKey: "n", as: Int.self) == 1)
        let refusal = store.recentEvents.compactMap { event -> String? in
            guard case .commitFailed(let error) = event, case .writeNotPermitted(_, "n", _) = error else { return nil }
            return "\(error)"
        }.first
        #expect(refusal?.contains("may only read namespace 'user:42'") == true, "\(store.recentEvents)")
        #expect(refusal?.contains("`stored access URL grant") == true && refusal?.contains("prints the grants") == false)
        let owner = try PreferenceStore(.postgres(url: database.ownerURL, namespace: "user:42"))
        #expect(owner.value(forKey: "n", as: Int.self) == 1)
    }

    /// Once a write shows the store its rule became read-only, it is read-only as if it had opened
    /// so: `isReadOnly`, and each later write refused at `set` (never shown in memory, never
    /// committed), `update` and `transaction` with the same typed error.
    @Test func aStoreWhoseRuleBecameReadOnlyIsReadOnlyFromTheFirstRefusalOn() throws {
        let database = try AccessDatabase()
        defer { database.drop() }
        let store = try PreferenceStore(
            .postgres(url: database.url(as: database.device), namespace: "user:42"), durability: .immediate)
        store.set(1, forKey: "n")
        #expect(!store.isReadOnly)
        #expect(try PostgresAccess.revoke(url: database.ownerURL, role: database.device, pattern: "user:42"))
        try PostgresAccess.grant(url: database.ownerURL, role: database.device, pattern: "user:42", writable: false)

        store.set(2, forKey: "n")  // refused at commit: nothing told the store before
        #expect(store.isReadOnly)
        let seen = Mutex<[Int]>([])
        let observation = store.observe(StoredKey<Int>("n", default: 0)) { change in
            seen.withLock { $0.append(change.newValue) }
        }
        let before = store.recentEvents.count
        store.set(3, forKey: "n")
        #expect(seen.withLock { $0 }.isEmpty, "refused at set, so never shown")
        #expect(store.value(forKey: "n", as: Int.self) == 1)
        #expect(store.state.withLock { $0.pending.isEmpty })
        let refusal = store.recentEvents.dropFirst(before).compactMap { event -> String? in
            guard case .commitFailed(.writeNotPermitted(_, "n", let privilege)) = event else { return nil }
            return privilege
        }
        #expect(refusal.count == 1 && refusal[0].contains("a read-write access rule for namespace 'user:42'"), "\(refusal)")
        #expect {
            try store.update(StoredKey<Int>("n", default: 0)) { $0 += 1 }
        } throws: { error in
            guard case .writeNotPermitted(_, "n", let privilege)? = error as? StoreError else { return false }
            return privilege.contains("a read-write access rule")
        }
        #expect {
            try store.transaction { $0.set(5, forKey: "m") }
        } throws: { error in
            guard case .writeNotPermitted(_, "m", _)? = error as? StoreError else { return false }
            return true
        }
        let owner = try PreferenceStore(.postgres(url: database.ownerURL, namespace: "user:42"))
        #expect(owner.value(forKey: "n", as: Int.self) == 1 && owner.value(forKey: "m", as: Int.self) == nil)
        withExtendedLifetime(observation) {}
    }

    @Test func aGrantAndARevokeWhileClientsRun() async throws {
        let database = try AccessDatabase()
        defer { database.drop() }
        let owner = try PreferenceStore(.postgres(url: database.ownerURL, namespace: "user:42"), durability: .immediate)
        owner.set(0.5, forKey: "volume")
        let device = database.url(as: database.device)
        #expect(throws: StoreError.self) { _ = try PreferenceStore(.postgres(url: device, namespace: "user:7")) }
        try PostgresAccess.grant(url: database.ownerURL, role: database.device, pattern: "user:7", writable: true)
        let seven = try PreferenceStore(.postgres(url: device, namespace: "user:7"), durability: .immediate)
        seven.set(7, forKey: "n")
        #expect(seven.value(forKey: "n", as: Int.self) == 7)

        let store = try PreferenceStore(.postgres(url: device, namespace: "user:42"), durability: .immediate)
        let seen = Mutex<[Double?]>([])
        let observation = store.observe(StoredKey<Double?>("volume", default: nil)) { change in
            seen.withLock { $0.append(change.newValue) }
        }
        owner.set(0.6, forKey: "volume")
        #expect(await waitUntil { store.value(forKey: "volume", as: Double.self) == 0.6 })

        #expect(try PostgresAccess.revoke(url: database.ownerURL, role: database.device, pattern: "user:42"))
        #expect(try !PostgresAccess.revoke(url: database.ownerURL, role: database.device, pattern: "user:42"))
        // Its next write is refused and dropped, named by key; the last values stay.
        store.set(0.9, forKey: "volume")
        #expect(store.state.withLock { $0.pending.isEmpty })
        #expect(store.value(forKey: "volume", as: Double.self) == 0.6)
        let refused = store.recentEvents.compactMap { event -> StoreError? in
            guard case .commitFailed(let error) = event, case .writeNotPermitted(_, "volume", _) = error else { return nil }
            return error
        }.first
        // Named by the rules (not the server's bare "row-level security"), with the command that grants one.
        let refusal = refused.map { "\($0)" } ?? "\(store.recentEvents)"
        #expect(refusal.contains("no access rule for namespace 'user:42'"), "\(refusal)")
        #expect(refusal.contains("`stored access URL grant") && !refusal.contains("prints the grants"), "\(refusal)")
        #expect(!refusal.contains("may only read"), "it may not read either: \(refusal)")
        // A change it may no longer read: the read fails, naming the lost rule, and observers are
        // not told that every key was removed.
        owner.set(0.7, forKey: "volume")
        let lost = await waitUntil {
            store.recentEvents.contains { event in
                guard case .reloadFailed(let error) = event else { return false }
                return "\(error)".contains("no access rule for namespace 'user:42'")
            }
        }
        #expect(lost, "\(store.recentEvents)")
        #expect(store.value(forKey: "volume", as: Double.self) == 0.6)
        // The refused 0.9 was shown, then taken back; never nil (every key removed), never the unreadable 0.7.
        #expect(seen.withLock { $0 } == [0.6, 0.9, 0.6])
        // The other namespace's rule still holds; nothing acknowledged was lost.
        seven.set(8, forKey: "n")
        let ownerSeven = try PreferenceStore(.postgres(url: database.ownerURL, namespace: "user:7"))
        #expect(ownerSeven.value(forKey: "n", as: Int.self) == 8)
        let ownerFortyTwo = try PreferenceStore(.postgres(url: database.ownerURL, namespace: "user:42"))
        #expect(ownerFortyTwo.value(forKey: "volume", as: Double.self) == 0.7)
        withExtendedLifetime(observation) {}
    }

    @Test func aRuleAppliesToTheMembersOfItsRoleAndToNobodyOnceItsRoleIsDropped() throws {
        let database = try AccessDatabase()
        defer { database.drop() }
        let root = try PostgresConnection(address: PostgresAddress(database.server))
        try root.run("CREATE ROLE \(database.group) NOLOGIN")
        try PostgresAccess.grant(url: database.ownerURL, role: database.group, pattern: "group:*", writable: true)
        let device = database.url(as: database.device)
        #expect(throws: StoreError.self) { _ = try PreferenceStore(.postgres(url: device, namespace: "group:1")) }
        // Through a role between them: membership counts however deep.
        let middle = database.group + "_middle"
        try root.run("CREATE ROLE \(middle) NOLOGIN; GRANT \(database.group) TO \(middle); GRANT \(middle) TO \(database.device)")
        defer { _ = try? root.run("DROP ROLE IF EXISTS \(middle)") }
        let store = try PreferenceStore(.postgres(url: device, namespace: "group:1"), durability: .immediate)
        #expect(!store.isReadOnly)
        store.set(1, forKey: "n")
        try store.flush()
        // Dropped: its rule stays in the table but applies to nobody (no error for the other roles either).
        try root.run("REVOKE \(database.group) FROM \(middle)")
        let inDatabase = try PostgresConnection(address: PostgresAddress(database.url(as: "postgres")))
        try inDatabase.run("DROP OWNED BY \(database.group) CASCADE")
        try root.run("DROP ROLE \(database.group)")
        #expect(throws: StoreError.self) { _ = try PreferenceStore(.postgres(url: device, namespace: "group:1")) }
        let own = try PreferenceStore(.postgres(url: device, namespace: "user:42"))
        #expect(!own.isReadOnly)
    }

    /// Migrations run with the rules of the role that opens: an import from a namespace its rules
    /// do not cover fails the migration (nothing staged is committed), one its rules cover works,
    /// and a role that may only read cannot run a migration at all.
    @Test func migrationsAndImportsReachOnlyWhatTheRulesCover() throws {
        let database = try AccessDatabase()
        defer { database.drop() }
        try database.writeSecret("of team blue", in: "team:blue:1")
        let device = database.url(as: database.device)
        let stealing = Migration(version: 1, "import the team's keys") { m in
            try m.importStore(PostgresBackend.postgres(url: device, namespace: "team:blue:1"))
        }
        #expect {
            _ = try PreferenceStore(.postgres(url: device, namespace: "user:42"), migrations: [stealing])
        } throws: { error in
            guard case .migrationFailed(1, _, let underlying)? = error as? StoreError,
                case .postgres(_, "42501", let message)? = underlying as? StoreError
            else { return false }
            return message.contains("namespace 'team:blue:1'")
        }
        let deviceSide = try PreferenceStore(.postgres(url: database.ownerURL, namespace: "user:42"))
        #expect(deviceSide.schemaVersion == 0 && deviceSide.value(forKey: "secret", as: String.self) == nil)

        let team = database.url(as: database.team)
        let importing = Migration(version: 1, "import from the first team namespace") { m in
            try m.importStore(PostgresBackend.postgres(url: team, namespace: "team:blue:1"))
        }
        let second = try PreferenceStore(.postgres(url: team, namespace: "team:blue:2"), migrations: [importing])
        #expect(second.schemaVersion == 1 && second.value(forKey: "secret", as: String.self) == "of team blue")

        let upgrade = Migration(version: 1, "a support tool may not upgrade") { m in m.set(1, forKey: "n") }
        #expect {
            _ = try PreferenceStore(
                .postgres(url: database.url(as: database.support), namespace: "user:7"), migrations: [upgrade])
        } throws: { error in
            guard case .migrationFailed(1, _, let underlying)? = error as? StoreError,
                case .writeNotPermitted? = underlying as? StoreError
            else { return false }
            return true
        }
    }

    /// A database set up by an earlier build of 0.10.0 lacks the function and the column the
    /// current policies read: the owner's next open finds the layout incomplete and installs them,
    /// and the limited roles work as before, with the rules they had.
    @Test func anEarlierSetupGetsTheCurrentPoliciesAtTheOwnersNextOpen() throws {
        let database = try AccessDatabase()
        defer { database.drop() }
        try database.writeSecret("kept", in: "user:42")
        let connection = try PostgresConnection(address: PostgresAddress(database.ownerURL))
        try connection.run(
            """
            DROP FUNCTION storedkit.group_patterns(boolean) CASCADE;
            ALTER TABLE storedkit.access_rules DROP COLUMN like_pattern CASCADE
            """)
        #expect(throws: StoreError.self) {
            _ = try PreferenceStore(.postgres(url: database.url(as: database.device), namespace: "user:42"))
        }
        // The owner's next process: this one's pool checked the layout once already.
        _ = try PreferenceStore(.postgres(url: database.ownerURL + "?application_name=next", namespace: "user:1"))
        let device = try PreferenceStore(.postgres(url: database.url(as: database.device), namespace: "user:42"))
        #expect(device.value(forKey: "secret", as: String.self) == "kept")
        #expect(!device.isReadOnly)
        #expect(throws: StoreError.self) {
            _ = try PreferenceStore(.postgres(url: database.url(as: database.device), namespace: "user:43"))
        }
    }

    /// The policies match a namespace with `LIKE` against each rule's `like_pattern`, which the
    /// server derives from the pattern by escaping `\`, `%` and `_`. Any slip there widens or narrows
    /// a rule, so hundreds of patterns over an alphabet of exactly those characters (and `*`, and
    /// characters of two and four UTF-8 bytes) are checked against thousands of namespaces, and
    /// what the server matches must be what this test computes byte by byte.
    @Test func everyRulesPatternMatchesExactlyWhatItSays() throws {
        let database = try AccessDatabase()
        defer { database.drop() }
        var generator = SeededGenerator(seed: 29)
        let alphabet = ["a", "b", "%", "_", "\\", "*", "é", "😀"]
        func word(_ length: ClosedRange<Int>) -> String {
            (0..<Int.random(in: length, using: &generator)).map { _ in
                alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
            }.joined()
        }
        let patterns = Set((0..<300).map { index in word(1...5) + (index.isMultiple(of: 2) ? "*" : "") })
        var namespaces = Set((0..<1_500).map { _ in word(0...7) })
        for pattern in patterns {
            let stem = pattern.hasSuffix("*") ? String(pattern.dropLast()) : pattern
            namespaces.formUnion([pattern, stem, stem + "x", stem + "\\", stem + "%", stem + word(1...3)])
            namespaces.insert(String(stem.dropLast()))
        }
        namespaces.remove("")
        let owner = try PostgresConnection(address: PostgresAddress(database.ownerURL))
        for pattern in patterns {
            try owner.query(
                "INSERT INTO storedkit.access_rules (role, pattern, writable) VALUES ('probe', $1, false)", [pattern])
        }
        let list = String(decoding: try JSONEncoder().encode(Array(namespaces)), as: UTF8.self)
        let matched = try owner.query(
            """
            SELECT r.pattern, n.namespace FROM storedkit.access_rules AS r, jsonb_array_elements_text($1::jsonb) AS n(namespace)
                WHERE r.role = 'probe' AND n.namespace LIKE r.like_pattern
            """, [list]
        ).map { "\($0[0] ?? "") \($0[1] ?? "")" }
        let expected = patterns.flatMap { pattern in
            namespaces.filter { namespace in
                guard pattern.hasSuffix("*") else { return Array(namespace.utf8) == Array(pattern.utf8) }
                return Array(namespace.utf8).starts(with: pattern.utf8.dropLast())
            }.map { "\(pattern) \($0)" }
        }
        #expect(expected.count > 1_000)
        #expect(matched.count == expected.count)
        let wrong = Set(matched).symmetricDifference(expected)
        #expect(wrong.isEmpty, "\(wrong.count) pattern and namespace pairs matched wrongly, e.g. \(wrong.sorted().prefix(5))")
    }

    /// A limited role that owns a schema of its own puts look-alikes of every function and
    /// operator the policies, `storedkit.member_roles()` and `storedkit.group_patterns()` call first
    /// on its search path (one names the team role as the role it belongs to, one makes every
    /// name equal): it still reads only its own namespace, because everything they call is named
    /// with its schema, and the rules table's own policy shows it only its own rules anyway.
    @Test func aSearchPathOfTheRolesOwnCannotWidenItsRules() throws {
        let database = try AccessDatabase()
        defer { database.drop() }
        try database.writeSecret("of team blue", in: "team:blue:1")
        let inDatabase = try PostgresConnection(address: PostgresAddress(database.url(as: "postgres")))
        // A membership, so the recursive part of member_roles() runs too.
        let club = database.group + "_club"
        try inDatabase.run("CREATE ROLE \(club) NOLOGIN; GRANT \(club) TO \(database.device)")
        defer { _ = try? inDatabase.run("DROP ROLE IF EXISTS \(club)") }
        try inDatabase.run("CREATE SCHEMA mimic AUTHORIZATION \(database.device)")
        let device = try PostgresConnection(address: PostgresAddress(database.url(as: database.device)))
        try device.run(
            """
            CREATE FUNCTION mimic.pg_get_userbyid(oid) RETURNS name LANGUAGE sql AS $$ SELECT '\(database.team)'::name $$;
            CREATE FUNCTION mimic.left(text, integer) RETURNS text LANGUAGE sql AS $$ SELECT ''::text $$;
            CREATE FUNCTION mimic.right(text, integer) RETURNS text LANGUAGE sql AS $$ SELECT '*'::text $$;
            CREATE FUNCTION mimic.to_regrole(text) RETURNS regrole LANGUAGE sql AS $$ SELECT '\(database.team)'::regrole $$;
            CREATE FUNCTION mimic.always(oid, oid) RETURNS boolean LANGUAGE sql AS $$ SELECT true $$;
            CREATE OPERATOR mimic.= (FUNCTION = mimic.always, LEFTARG = oid, RIGHTARG = oid);
            CREATE FUNCTION mimic.always_name(name, name) RETURNS boolean LANGUAGE sql AS $$ SELECT true $$;
            CREATE OPERATOR mimic.= (FUNCTION = mimic.always_name, LEFTARG = name, RIGHTARG = name);
            SET search_path = mimic, pg_catalog, storedkit;
            """)
        let seen = try device.query("SELECT count(*) FROM storedkit.preferences WHERE namespace = 'team:blue:1'")
        #expect(seen == [["0"]])
        #expect(try device.query("SELECT storedkit.member_roles()::text") == [["{\(database.device),\(club)}"]])
        #expect(try device.query("SELECT storedkit.group_patterns(false)::text") == [["{user:42}"]])
        #expect(throws: StoreError.self) {
            try device.query(
                "INSERT INTO storedkit.preferences (namespace, key, type, string_value, updated_at, revision) "
                    + "VALUES ('team:blue:1', 'forged', 'string', 'x', now(), 1)")
        }
    }

    /// A database owned by a fresh non-superuser owner, set up by `PostgresSetup` as that owner, with
    /// the rules of the suite granted by `PostgresAccess`, and the roles `grant` must refuse.
    final class AccessDatabase {
        let name = "access_\(UUID().uuidString.prefix(8).lowercased())"
        let server: String
        let owner, support, team, device, literal, bypasser, bypassMember, ownerMember, group: String
        var roles: [String] { [group, support, team, device, literal, bypassMember, ownerMember, bypasser, owner] }
        var ownerURL: String { url(as: owner) }

        init() throws {
            server = try PostgresTestServer.requireURL()
            let suffix = name.dropFirst(7)
            (owner, support, team, device) = ("own_\(suffix)", "support_\(suffix)", "team_\(suffix)", "device_\(suffix)")
            (literal, bypasser, bypassMember, ownerMember) = (
                "lit_\(suffix)", "bypass_\(suffix)", "bymember_\(suffix)", "ownmember_\(suffix)"
            )
            group = "group_\(suffix)"
            let root = try PostgresConnection(address: PostgresAddress(server))
            for role in [owner, support, team, device, literal, bypassMember, ownerMember] {
                try root.run("CREATE ROLE \(role) LOGIN")
            }
            try root.run("CREATE ROLE \(bypasser) LOGIN BYPASSRLS")
            try root.run("GRANT \(bypasser) TO \(bypassMember); GRANT \(owner) TO \(ownerMember)")
            try root.run("CREATE DATABASE \(name) OWNER \(owner)")
            // A hardened database: functions its owner creates are not for everyone by default, so
            // the setup must grant what the policies call (storedkit.member_roles()) itself.
            let inDatabase = try PostgresConnection(address: PostgresAddress(url(as: "postgres")))
            try inDatabase.run("ALTER DEFAULT PRIVILEGES FOR ROLE \(owner) REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC")
            try PostgresSetup.apply(url: url(as: owner), role: team, readOnlyRole: nil)
            // The setup gave the application role `readwrite *`: narrowed to its team's namespaces.
            #expect(try PostgresAccess.revoke(url: ownerURL, role: team, pattern: "*"))
            try PostgresAccess.grant(url: ownerURL, role: team, pattern: "team:blue:*", writable: true)
            try PostgresAccess.grant(url: ownerURL, role: support, pattern: "user:*", writable: false)
            try PostgresAccess.grant(url: ownerURL, role: device, pattern: "user:42", writable: true)
            try PostgresAccess.grant(url: ownerURL, role: literal, pattern: "a%b_c*", writable: true)
            try PostgresAccess.grant(url: ownerURL, role: literal, pattern: "x_y", writable: true)
        }

        /// Writes `value` under key `secret` in `namespace` as the owner, committed before it returns.
        func writeSecret(_ value: String, in namespace: String) throws {
            let store = try PreferenceStore(.postgres(url: ownerURL, namespace: namespace), durability: .immediate)
            store.set(value, forKey: "secret")
            try store.flush()
        }

        func url(as role: String) -> String {
            let base = server.hasSuffix("/postgres") ? String(server.dropLast(8)) : server
            return (base + name).replacingOccurrences(of: "://postgres@", with: "://\(role)@")
        }

        func drop() {
            guard let root = try? PostgresConnection(address: PostgresAddress(server)) else { return }
            _ = try? root.run("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            for role in roles { _ = try? root.run("DROP ROLE IF EXISTS \(role)") }
        }
    }
}
