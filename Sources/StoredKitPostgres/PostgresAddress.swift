internal import CStoredPostgres
import StoredKit

/// A server's connection parameters as libpq reads them (URI or `key=value` form): the key that
/// shares connections between the stores of one process, and a description without the password.
///
/// ```swift
/// let address = try PostgresAddress("postgresql://app:secret@db.internal:5433/prefs")
/// address.description  //=> "postgresql://app@db.internal:5433/prefs"
/// ```
struct PostgresAddress: Sendable, Hashable, CustomStringConvertible {
    /// What the caller passed, handed to libpq unchanged so every parameter works as documented.
    let connectionString: String
    /// Every parameter libpq parsed, sorted, password included: two URLs naming the same server
    /// the same way share connections.
    let poolKey: String
    /// `postgresql://user@host:port/database`, with only what the URL sets and never the password.
    let description: String
    private let password: String?
    /// Whether the string chooses GSSAPI encryption itself (`gssencmode`) or names a service
    /// whose file may: then libpq's own choice stands.
    let choosesGSSEncryption: Bool

    init(_ connectionString: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &error) else {
            let reason = error.map { String(cString: $0) } ?? "not a PostgreSQL connection string"
            if let error { PQfreemem(error) }
            throw StoreError.postgres(
                server: "(unparsed URL)", code: "08001",
                message: "not a valid libpq URL or key=value string: "
                    + Self.redactUnparsed(reason.split(whereSeparator: \.isNewline).joined(separator: "; "))
                    + " (use postgresql://user@host:port/database?parameter=value)")
        }
        defer { PQconninfoFree(options) }
        var parameters: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val, value.pointee != 0 {
                parameters[String(cString: keyword)] = String(cString: value)
            }
            option += 1
        }
        self.connectionString = connectionString
        self.password = parameters["password"]
        self.choosesGSSEncryption = parameters["gssencmode"] != nil || parameters["service"] != nil
        self.poolKey = parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
        self.description = Self.describe(parameters)
    }

    /// Removes the password from a server message, in case libpq or the server echoed it.
    func redact(_ message: String) -> String {
        var text = Self.redactUnparsed(message)
        if let password, !password.isEmpty { text = text.replacing(password, with: "***") }
        return text
    }

    private static func describe(_ parameters: [String: String]) -> String {
        let user = parameters["user"].map { $0 + "@" } ?? ""
        let host = parameters["host"] ?? parameters["hostaddr"] ?? ""
        let port = parameters["port"].map { ":" + $0 } ?? ""
        let database = parameters["dbname"] ?? ""
        if host.hasPrefix("/") {
            return "postgresql://\(user)/\(database)?host=\(host)\(port.isEmpty ? "" : "&port=" + port.dropFirst())"
        }
        return "postgresql://\(user)\(host.isEmpty ? "localhost" : host)\(port)/\(database)"
    }

    /// A URL libpq could not parse may still hold a password: drop `user:password@` and `password=…`.
    private static func redactUnparsed(_ message: String) -> String {
        var text = message
        text.replace(/:\/\/([^:@\/]*):[^@\/]*@/) { "://\($0.output.1):***@" }
        text.replace(/password\s*=\s*('[^']*'|\S+)/.ignoresCase()) { _ in "password=***" }
        return text
    }
}
