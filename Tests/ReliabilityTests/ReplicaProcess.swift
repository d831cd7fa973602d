import Foundation
import StoredKitTestSupport
import Testing

/// What the replica tests need around `stored-test-helper`'s replica commands
/// (Tests/StoredTestHelper/ReplicaCommands.swift): running one to its end, reading what
/// `replica-dump` printed, and what the server's tables hold, as `psql` shows them.
enum ReplicaProcess {
    /// Runs the helper with `arguments` to its end (at most `timeout`); returns it, its lines read.
    static func run(_ arguments: [String], timeout: Duration = .seconds(90)) async throws -> (
        helper: HelperProcess, status: Int32?
    ) {
        let helper = try HelperProcess(arguments)
        let status = await helper.exitStatus(timeout: timeout)
        return (helper, status)
    }

    /// What `replica-dump` printed: the replica's values, their stamps ("MS COUNTER REPLICA"), its outbox's size.
    typealias Dump = ReplicaConvergence.Dump

    /// Runs `replica-dump` on a replica after a synchronize; nil (and an issue recorded) when it failed.
    static func dump(_ url: String, _ namespace: String, _ file: URL, sync seconds: Int = 30) async throws -> Dump? {
        let (helper, status) = try await run(["replica-dump", url, namespace, file.path, "--sync", String(seconds)])
        guard status == 0, let dump = Dump(helper.lines) else {
            Issue.record(
                "replica-dump of \(file.lastPathComponent) ended with \(status.map(String.init) ?? "a timeout"): \(helper.lines)")
            return nil
        }
        return dump
    }

    /// A row of `storedkit.preferences` (a value) or `storedkit.removed_keys` (a tombstone, `value` nil).
    typealias ServerRow = ReplicaConvergence.ServerRow

    /// The namespace's rows and tombstones, by key: the row first, then the tombstone, if any.
    static func serverRows(_ url: String, _ namespace: String) throws -> [String: [ServerRow]] {
        try ReplicaConvergence.serverRows(url, namespace)
    }

    /// The namespace's revision (0: no row).
    static func namespaceRevision(_ url: String, _ namespace: String) throws -> Int64 {
        Int64(try ExternalCommand.psql(url, "SELECT revision FROM storedkit.namespaces WHERE namespace = '\(namespace)'")) ?? 0
    }

    /// A namespace no other test uses.
    static func freshNamespace(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.lowercased().prefix(8))"
    }
}
