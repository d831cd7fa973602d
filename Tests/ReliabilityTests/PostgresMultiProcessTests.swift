import Foundation
import StoredKit
import StoredKitPostgres
import StoredKitTestSupport
import Testing

/// Several processes on one namespace of the test server (`make test` starts it): one over the
/// Unix socket and one over TCP, as two machines would be.
@Suite(
    "Several processes on one PostgreSQL namespace", .serialized,
    .enabled(if: PostgresURLs.isEnabled, PostgresURLs.skipMessage))
struct PostgresMultiProcessTests {
    @Test func fourProcessesIncrementingLoseNothing() async throws {
        let (tcp, socket) = try PostgresURLs.require()
        let namespace = "increments-\(UUID().uuidString)"
        let helpers = try (0..<4).map { index in
            try HelperProcess(
                ["increment", index.isMultiple(of: 2) ? tcp : socket, "500"], environment: ["STORED_NAMESPACE": namespace])
        }
        for helper in helpers {
            #expect(await helper.exitStatus() == 0)
        }
        let store = try PreferenceStore(.postgres(url: tcp, namespace: namespace))
        #expect(store.value(forKey: "counter", as: Int.self) == 2000)
    }

    @Test func observerOverTheSocketSeesAWriteOverTCP() async throws {
        let (tcp, socket) = try PostgresURLs.require()
        let namespace = "observe-\(UUID().uuidString)"
        let store = try PreferenceStore(.postgres(url: tcp, namespace: namespace))
        store.set("before", forKey: "greeting")
        try store.flush()
        let observer = try HelperProcess(["observe", socket, "greeting", "1"], environment: ["STORED_NAMESPACE": namespace])
        #expect(await observer.waitForLine { $0 == "ready" })
        store.set("hello", forKey: "greeting")
        try store.flush()
        #expect(await observer.exitStatus() == 0)
        #expect(observer.lines.contains("greeting=\"hello\" external"))
    }

    @Test func observerOverTCPSeesAWriteOverTheSocket() async throws {
        let (tcp, socket) = try PostgresURLs.require()
        let namespace = "observe-\(UUID().uuidString)"
        let store = try PreferenceStore(.postgres(url: tcp, namespace: namespace))
        let seen = ChangeLog()
        let token = store.observe("greeting") { seen.append($0) }
        let writer = try HelperProcess(["set", socket, "greeting", "from afar"], environment: ["STORED_NAMESPACE": namespace])
        #expect(await writer.exitStatus() == 0)
        #expect(await seen.wait { $0.contains { $0.newValue == .string("from afar") && $0.origin == .external } })
        #expect(store.value(forKey: "greeting", as: String.self) == "from afar")
        withExtendedLifetime(token) {}
    }

    @Test func fourProcessesOpeningANamespaceAtOnceRunItsMigrationOnce() async throws {
        let (tcp, socket) = try PostgresURLs.require()
        let namespace = "migrate-\(UUID().uuidString)"
        let folder = try TemporaryDirectory()
        let helpers = try (0..<4).map { index in
            try HelperProcess(
                ["migrate", index.isMultiple(of: 2) ? tcp : socket, folder.url.path], environment: ["STORED_NAMESPACE": namespace]
            )
        }
        try await expectOneMigration(by: helpers, in: folder)
        let store = try PreferenceStore(.postgres(url: tcp, namespace: namespace))
        #expect(store.schemaVersion == 1)
        #expect(store.value(forKey: "migrated", as: String.self) == "done")
    }

    @Test func concurrentFirstOpensOfAnEmptyDatabaseAllSucceed() async throws {
        let (tcp, _) = try PostgresURLs.require()
        let database = "storedkit_fresh_\(UUID().uuidString.replacingOccurrences(of: "-", with: "_").lowercased())"
        try PostgresURLs.psql(tcp, "CREATE DATABASE \(database)")
        defer { try? PostgresURLs.psql(tcp, "DROP DATABASE \(database) WITH (FORCE)") }
        let fresh = try PostgresURLs.replacingDatabase(in: tcp, with: database)
        let helpers = try (0..<8).map { index in
            try HelperProcess(["set", fresh, "writer\(index)", "here"], environment: ["STORED_NAMESPACE": "fresh"])
        }
        for helper in helpers {
            #expect(await helper.exitStatus() == 0)
        }
        let store = try PreferenceStore(.postgres(url: fresh, namespace: "fresh"))
        #expect(store.keys.sorted() == (0..<8).map { "writer\($0)" })
    }
}

/// The test server's URLs, exported by `make test`. Under `CI=true` a missing one is a failure.
enum PostgresURLs {
    static let environment = ProcessInfo.processInfo.environment
    static let isEnabled = environment["STOREDKIT_POSTGRES_URL"] != nil || environment["CI"] == "true"
    static let skipMessage: Comment =
        "No PostgreSQL test server: run `make test` (it starts one), or set STOREDKIT_POSTGRES_URL and STOREDKIT_POSTGRES_SOCKET_URL"

    struct Missing: Error, CustomStringConvertible {
        var description: String { "STOREDKIT_POSTGRES_URL / STOREDKIT_POSTGRES_SOCKET_URL are not set: run `make test`" }
    }

    /// The TCP and Unix-socket URLs.
    static func require() throws -> (tcp: String, socket: String) {
        guard let tcp = environment["STOREDKIT_POSTGRES_URL"], let socket = environment["STOREDKIT_POSTGRES_SOCKET_URL"] else {
            throw Missing()
        }
        return (tcp, socket)
    }

    /// `postgresql://user@host:port/old` with another database.
    static func replacingDatabase(in url: String, with database: String) throws -> String {
        guard let slash = url.range(of: "/", options: .backwards), !url[..<slash.lowerBound].hasSuffix("/") else {
            throw Missing()
        }
        return String(url[..<slash.upperBound]) + database
    }

    /// Runs one SQL command with `psql`, as a person at a terminal would.
    static func psql(_ url: String, _ sql: String) throws {
        try ExternalCommand.psql(url, sql)
    }
}
