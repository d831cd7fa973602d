import StoredKit
import StoredKitPostgres

/// A namespace on a PostgreSQL server named on the command line: the URL as given (handed to
/// libpq unchanged) and everything messages may show, which never includes the password.
///
/// ```swift
/// let server = try PostgresLocation("postgresql://app:secret@db/prefs", namespace: "user:42")
/// server.description  //=> "postgresql://app@db/prefs (namespace user:42)"
/// server.shownArgument  //=> "postgresql://app@db/prefs --namespace user:42"
/// ```
struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// The URL or `key=value` string as the user wrote it; only libpq sees it.
    let url: String
    let namespace: String
    /// The server without the password: `postgresql://user@host:port/database`.
    let server: String

    init(_ url: String, namespace: String) throws(CLIError) {
        guard !namespace.isEmpty else { throw CLIError.usage(nil, "--namespace is empty; give a namespace name") }
        self.url = url
        self.namespace = namespace
        do {
            server = try PostgresNamespaceSummary.server(of: url)
        } catch StoreError.postgres(_, _, let message) {
            throw CLIError(.invalidInput, "STORE is \(message); nothing was changed.")
        } catch {
            throw CLIError(.invalidInput, "STORE is not a valid PostgreSQL URL: \(error)")
        }
    }

    /// The server a command that works on a whole database (`namespaces`, `access`,
    /// `postgres-setup`) is given as its first argument; a usage error for `command` when the
    /// argument is not a server.
    ///
    /// ```swift
    /// try PostgresLocation(server: "postgresql://owner@db/prefs", for: "access").server  //=> "postgresql://owner@db/prefs"
    /// ```
    init(server argument: String, for command: String) throws(CLIError) {
        guard Self.isServer(argument) else {
            throw CLIError.usage(command, "'\(argument)' is not a postgresql:// URL or libpq key=value string")
        }
        try self.init(argument, namespace: "default")
    }

    /// Whether a STORE argument names a server: a `postgresql://` or `postgres://` URL, or a libpq
    /// `key=value` string (`host=db dbname=prefs`). A file path never starts with `word=`.
    static func isServer(_ argument: String) -> Bool {
        let lowered = argument.lowercased()
        if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") { return true }
        return argument.wholeMatch(of: /\s*[A-Za-z_]+\s*=.*/.dotMatchesNewlines()) != nil
    }

    var description: String { "\(server) (namespace \(namespace))" }

    /// The STORE argument to suggest in messages (`stored keys …`): the password left out.
    var shownArgument: String {
        namespace == "default" ? server : "\(server) --namespace \(Self.quotedIfNeeded(namespace))"
    }

    /// The namespace's key count and schema version; nil when it does not exist.
    func summary() throws -> PostgresNamespaceSummary? {
        try PostgresNamespaceSummary.all(url: url, named: namespace).first
    }

    private static func quotedIfNeeded(_ text: String) -> String {
        text.allSatisfy { $0.isLetter || $0.isNumber || "-_.:/@".contains($0) } ? text : "'" + text + "'"
    }
}

extension OptionSpec {
    /// `--namespace NAME`, accepted by every command that takes a STORE.
    static let namespace = OptionSpec(
        "namespace", value: "NAME", "The namespace of a PostgreSQL STORE (default: default).")
}
