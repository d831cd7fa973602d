import StoredKit

/// One namespace of a StoredKit PostgreSQL database as `stored namespaces` lists it: its name,
/// how many keys it holds, its migrations' schema version and its revision (commits so far).
///
/// ```swift
/// let namespaces = try PostgresNamespaceSummary.all(url: "postgresql://app@db.internal/prefs")
/// namespaces.map(\.name)  //=> ["default", "user:42"]
/// namespaces[1].keyCount  //=> 12
/// ```
public struct PostgresNamespaceSummary: Sendable, Hashable {
    /// The namespace, as passed to ``PostgresBackend/postgres(url:namespace:timeout:)``.
    public let name: String
    /// The keys it holds now (removed keys not counted).
    public let keyCount: Int
    /// The schema version its migrations reached.
    public let schemaVersion: Int
    /// Its revision: bumped by every write transaction.
    public let revision: Int64

    /// Every namespace in the database at `url`, sorted by name (only `named` when given); none
    /// when StoredKit never wrote there. Reads only: no table is created, no namespace touched.
    /// A role that an access rule keeps from `named` gets that refusal, not an empty answer, so
    /// `stored read` does not say a namespace is missing when only the rule is.
    ///
    /// ```swift
    /// try PostgresNamespaceSummary.all(url: "postgresql:///prefs", named: "user:42").first?.schemaVersion  //=> 3
    /// ```
    public static func all(url: String, named: String? = nil) throws -> [PostgresNamespaceSummary] {
        let connection = try PostgresConnection(address: PostgresAddress(url))
        guard try PostgresLayout.check(connection) != nil else { return [] }
        let rows = try connection.query(listing, [named])
        if let named, rows.isEmpty, case .none(let role, let rules) = try PostgresAccess.level(of: named, connection) {
            throw PostgresAccess.refusal(namespace: named, role: role, rules: rules, server: connection.address.description)
        }
        return rows.compactMap { row in
            guard row.count == 4, let name = row[0] else { return nil }
            return PostgresNamespaceSummary(
                name: name, keyCount: row[3].flatMap { Int($0) } ?? 0, schemaVersion: row[1].flatMap { Int($0) } ?? 0,
                revision: row[2].flatMap { Int64($0) } ?? 0)
        }
    }

    /// The server of `url` as messages show it: no password.
    ///
    /// ```swift
    /// try PostgresNamespaceSummary.server(of: "postgresql://app:secret@db/prefs")  //=> "postgresql://app@db/prefs"
    /// ```
    public static func server(of url: String) throws -> String {
        try PostgresAddress(url).description
    }

    /// `$1` one namespace, or NULL for all: name, schema version, revision, key count.
    private static let listing = """
        SELECT n.namespace, n.schema_version, n.revision,
            (SELECT count(*) FROM storedkit.preferences AS p WHERE p.namespace = n.namespace)
            FROM storedkit.namespaces AS n WHERE $1::text IS NULL OR n.namespace = $1::text ORDER BY n.namespace
        """
}
