import Foundation
import StoredKitTestSupport

/// The PostgreSQL server of the PostgreSQL scenarios: `STOREDKIT_POSTGRES_URL` when set, else a
/// throwaway one this run starts (Scripts/postgres-test-server.sh: durable settings, fsync on)
/// and stops at exit. Started once, on first use, and said so.
///
/// ```swift
/// let server = try BenchPostgresServer.shared()
/// server.url  //=> "postgresql://postgres@127.0.0.1:41234/postgres"
/// ```
final class BenchPostgresServer: @unchecked Sendable {
    let url: String
    /// Where it came from, for the report.
    let origin: String
    /// The server this run started; nil for the one of `STOREDKIT_POSTGRES_URL`.
    private let own: ThrowawayPostgresServer?

    /// Touched only by the scenarios, which run one at a time on the main thread.
    nonisolated(unsafe) private static var started: Result<BenchPostgresServer, BenchmarkError>?

    /// The server, started on the first call; the same failure every later call when none can start.
    static func shared() throws -> BenchPostgresServer {
        if let started { return try started.get() }
        let result: Result<BenchPostgresServer, BenchmarkError>
        do {
            result = .success(try BenchPostgresServer())
        } catch {
            result = .failure(error as? BenchmarkError ?? .unexpected("\(error)"))
        }
        started = result
        if case .success(let server) = result {
            print("PostgreSQL: \(server.origin)")
            atexit { if case .success(let server) = BenchPostgresServer.started { server.stop() } }
        }
        return try result.get()
    }

    private init() throws {
        if let given = ProcessInfo.processInfo.environment["STOREDKIT_POSTGRES_URL"] {
            url = given
            origin = "the server of STOREDKIT_POSTGRES_URL"
            own = nil
            return
        }
        let own: ThrowawayPostgresServer
        do {
            own = try ThrowawayPostgresServer(label: "stored-bench-pg")
        } catch {
            throw BenchmarkError.unexpected("\(error) (make deps installs postgresql; or set STOREDKIT_POSTGRES_URL)")
        }
        url = own.url
        origin = "started a throwaway server for this run at \(url) (durable: fsync and synchronous_commit on)"
        self.own = own
    }

    private func stop() {
        own?.stop()
    }
}
