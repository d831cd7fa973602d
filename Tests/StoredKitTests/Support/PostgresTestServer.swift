import Foundation
import Testing

@testable import StoredKit

/// The throwaway server `make test` starts (Scripts/postgres-test-server.sh) and the URLs it
/// exports. Without them the PostgreSQL suites are skipped and say how to run them, except under
/// `CI=true`, where a missing server fails every one of their tests.
enum PostgresTestServer {
    static let environment = ProcessInfo.processInfo.environment

    /// TCP: `postgresql://postgres@127.0.0.1:PORT/postgres`.
    static let url = environment["STOREDKIT_POSTGRES_URL"]
    /// Unix socket: `postgresql:///postgres?host=DIR&port=PORT&user=postgres`.
    static let socketURL = environment["STOREDKIT_POSTGRES_SOCKET_URL"]

    /// Whether the suites run: with a server, or under CI (where they then fail).
    static let isEnabled = url != nil || environment["CI"] == "true"

    static let skipMessage: Comment =
        "No PostgreSQL test server: run `make test` (it starts one), or set STOREDKIT_POSTGRES_URL and STOREDKIT_POSTGRES_SOCKET_URL"

    /// The TCP URL, or a failure naming what is missing.
    static func requireURL() throws -> String {
        guard let url else { throw MissingServer() }
        return url
    }

    /// The Unix-socket URL, or a failure naming what is missing.
    static func requireSocketURL() throws -> String {
        guard let socketURL else { throw MissingServer() }
        return socketURL
    }

    /// A namespace no other test uses.
    static func freshNamespace(_ label: String = "test") -> String {
        "\(label)-\(UUID().uuidString)"
    }

    struct MissingServer: Error, CustomStringConvertible {
        var description: String {
            "CI=true but STOREDKIT_POSTGRES_URL / STOREDKIT_POSTGRES_SOCKET_URL are not set: run the tests with `make test`"
        }
    }
}
