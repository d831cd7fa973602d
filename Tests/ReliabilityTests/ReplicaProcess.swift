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
    struct Dump: Equatable {
        var values: [String: String]
        var stamps: [String: String]
        var pending: Int

        init?(_ lines: [String]) {
            func json(_ prefix: String) -> [String: String]? {
                guard let line = lines.last(where: { $0.hasPrefix(prefix) }) else { return nil }
                return (try? JSONSerialization.jsonObject(with: Data(line.dropFirst(prefix.count).utf8))) as? [String: String]
            }
            guard let values = json("values="), let stamps = json("stamps="),
                let pending = lines.last(where: { $0.hasPrefix("pending=") }).flatMap({ Int($0.dropFirst(8)) })
            else { return nil }
            (self.values, self.stamps, self.pending) = (values, stamps, pending)
        }
    }

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
    struct ServerRow: Equatable, CustomStringConvertible {
        var key: String
        var value: String?
        var stampMs: Int64
        var stampCounter: Int64
        var stampReplica: String
        /// The namespace revision that wrote the row, and when (the server's clock): what a second
        /// application of the same write would change.
        var revision: Int64
        var writtenAt: String

        var stamp: String { "\(stampMs) \(stampCounter) \(stampReplica)" }
        var description: String { "\(key)=\(value ?? "(removed)") @\(stamp) rev \(revision) at \(writtenAt)" }
    }

    /// The namespace's rows and tombstones, by key: the row first, then the tombstone, if any.
    static func serverRows(_ url: String, _ namespace: String) throws -> [String: [ServerRow]] {
        let output = try ExternalCommand.psql(
            url,
            """
            SELECT key, 'v', coalesce(string_value, int_value::text, double_value::text, type), stamp_ms, stamp_counter,
                stamp_replica, revision, updated_at::text FROM storedkit.preferences WHERE namespace = '\(namespace)'
            UNION ALL
            SELECT key, 'r', '', stamp_ms, stamp_counter, stamp_replica, revision, removed_at::text
                FROM storedkit.removed_keys WHERE namespace = '\(namespace)'
            """)
        var rows: [String: [ServerRow]] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 8, let ms = Int64(fields[3]), let counter = Int64(fields[4]), let revision = Int64(fields[6])
            else {
                Issue.record("unexpected psql row: \(line)")
                continue
            }
            rows[fields[0], default: []].append(
                ServerRow(
                    key: fields[0], value: fields[1] == "v" ? fields[2] : nil, stampMs: ms, stampCounter: counter,
                    stampReplica: fields[5], revision: revision, writtenAt: fields[7]))
        }
        // A key set again after a removal keeps its older tombstone beside the row: the row first.
        return rows.mapValues { $0.sorted { $0.value != nil && $1.value == nil } }
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
