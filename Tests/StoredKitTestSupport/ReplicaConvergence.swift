import Foundation
import StoredKit

/// Whether replicas that wrote at random converged (issue 39): every replica holds what the
/// server holds, value and stamp, with nothing pending, and each key holds the write made last,
/// the highest (stamp, replica id) among the writes the clients logged (a removal's meaning the
/// key is absent). Shared by `ReplicaConvergenceTests` and `stored-torture replica-soak`, which
/// log their writes as `stored-test-helper replica-random` does ("s KEY VALUE MS COUNTER REPLICA").
///
/// ```swift
/// let check = ReplicaConvergence(
///     keys: ["k0", "k1"], writes: lines.compactMap(ReplicaConvergence.Write.init),
///     serverRows: try ReplicaConvergence.serverRows(url, "soak"), replicas: dumps)
/// check.divergentKeys  //=> [] when every replica holds the server's values
/// check.problems  //=> [] when it converged
/// ```
public struct ReplicaConvergence: Sendable {
    /// One write a client logged with the stamp its replica recorded for it.
    ///
    /// ```swift
    /// ReplicaConvergence.Write("s k3 c0-7-12 1733000000000 0 6F9A")?.value  //=> "c0-7-12"
    /// ```
    public struct Write: Sendable, Equatable, CustomStringConvertible {
        /// The key written.
        public var key: String
        /// The value set; nil for a removal.
        public var value: String?
        /// The stamp's milliseconds.
        public var ms: Int64
        /// The stamp's counter.
        public var counter: Int64
        /// The replica that made the write.
        public var replica: String

        /// Reads "s KEY VALUE MS COUNTER REPLICA" (VALUE "-" for a removal); nil for any other line.
        ///
        /// ```swift
        /// ReplicaConvergence.Write("s k1 - 1733000000000 2 6F9A")?.value  //=> nil (a removal)
        /// ReplicaConvergence.Write("w k1 x")  //=> nil
        /// ```
        public init?(_ line: String) {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 6, fields[0] == "s", let ms = Int64(fields[3]), let counter = Int64(fields[4]) else {
                return nil
            }
            (key, value, self.ms, self.counter, replica) = (fields[1], fields[2] == "-" ? nil : fields[2], ms, counter, fields[5])
        }

        /// "MS COUNTER REPLICA", as ``Dump/stamps`` and ``ServerRow/stamp`` write it.
        ///
        /// ```swift
        /// write.stamp  //=> "1733000000000 0 6F9A"
        /// ```
        public var stamp: String { "\(ms) \(counter) \(replica)" }

        /// The write for messages.
        ///
        /// ```swift
        /// "\(write)"  //=> "k1=(removed) @1733000000000 2 6F9A"
        /// ```
        public var description: String { "\(key)=\(value ?? "(removed)") @\(stamp)" }

        /// The order of the merge: stamp, then replica id (byte order, as the server's COLLATE "C").
        ///
        /// ```swift
        /// later.beats(earlier)  //=> true
        /// ```
        public func beats(_ other: Write) -> Bool {
            if (ms, counter) != (other.ms, other.counter) { return (ms, counter) > (other.ms, other.counter) }
            return Array(other.replica.utf8).lexicographicallyPrecedes(Array(replica.utf8))
        }
    }

    /// What a replica holds: its values, their stamps ("MS COUNTER REPLICA") and its outbox's size,
    /// printed as the lines `values={…}`, `stamps={…}` and `pending=N` (sorted JSON objects).
    ///
    /// ```swift
    /// let dump = try ReplicaConvergence.Dump(reading: replicaFile)
    /// ReplicaConvergence.Dump(dump.lines) == dump  //=> true
    /// ```
    public struct Dump: Sendable, Equatable {
        /// Each key's value, as text.
        public var values: [String: String]
        /// Each key's stamp, "MS COUNTER REPLICA".
        public var stamps: [String: String]
        /// How many writes wait in the outbox.
        public var pending: Int

        /// A dump of these contents.
        ///
        /// ```swift
        /// ReplicaConvergence.Dump(values: ["k1": "a"], stamps: ["k1": "1733000000000 0 6F9A"], pending: 0)
        /// ```
        public init(values: [String: String], stamps: [String: String], pending: Int) {
            (self.values, self.stamps, self.pending) = (values, stamps, pending)
        }

        /// Reads the last `values=`, `stamps=` and `pending=` lines; nil when one is missing or unreadable.
        ///
        /// ```swift
        /// ReplicaConvergence.Dump(["values={}", "stamps={}", "pending=0"])?.pending  //=> 0
        /// ```
        public init?(_ lines: [String]) {
            func json(_ prefix: String) -> [String: String]? {
                guard let line = lines.last(where: { $0.hasPrefix(prefix) }) else { return nil }
                return (try? JSONSerialization.jsonObject(with: Data(line.dropFirst(prefix.count).utf8))) as? [String: String]
            }
            guard let values = json("values="), let stamps = json("stamps="),
                let pending = lines.last(where: { $0.hasPrefix("pending=") }).flatMap({ Int($0.dropFirst(8)) })
            else { return nil }
            self.init(values: values, stamps: stamps, pending: pending)
        }

        /// Reads the replica file at `url` (a second handle beside the store that has it open).
        ///
        /// ```swift
        /// try ReplicaConvergence.Dump(reading: directory.file("client0.replica")).pending  //=> 0
        /// ```
        public init(reading url: URL) throws {
            let file = ReplicaFile(at: url, corruption: .fail)
            var values: [String: String] = [:]
            var stamps: [String: String] = [:]
            for (key, value) in try file.sqlite.load().values {
                if case .string(let text) = value { values[key] = text } else { values[key] = "\(value)" }
                if let held = try file.stamp(of: key) {
                    stamps[key] = "\(held.stamp.milliseconds) \(held.stamp.counter) \(held.replicaID)"
                }
            }
            self.init(values: values, stamps: stamps, pending: try file.pendingSummary().count)
        }

        /// The three lines ``init(_:)`` reads.
        ///
        /// ```swift
        /// dump.lines  //=> ["values={\"k1\":\"a\"}", "stamps={\"k1\":\"1733000000000 0 6F9A\"}", "pending=0"]
        /// ```
        public var lines: [String] {
            func json(_ object: [String: String]) -> String {
                let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
                return String(decoding: data, as: UTF8.self)
            }
            return ["values=\(json(values))", "stamps=\(json(stamps))", "pending=\(pending)"]
        }
    }

    /// A row of `storedkit.preferences` (a value) or `storedkit.removed_keys` (a tombstone, `value` nil).
    ///
    /// ```swift
    /// try ReplicaConvergence.serverRows(url, "soak")["k1"]?.first?.value  //=> "c0-7-12"
    /// ```
    public struct ServerRow: Sendable, Equatable, CustomStringConvertible {
        /// The key.
        public var key: String
        /// The value as text; nil for a tombstone.
        public var value: String?
        /// The stamp's milliseconds.
        public var stampMs: Int64
        /// The stamp's counter.
        public var stampCounter: Int64
        /// The replica whose write this is.
        public var stampReplica: String
        /// The namespace revision that wrote the row: what a second application of the same write would change.
        public var revision: Int64
        /// When the server wrote it (the server's clock).
        public var writtenAt: String

        /// A row with these columns.
        ///
        /// ```swift
        /// ReplicaConvergence.ServerRow(
        ///     key: "k1", value: "a", stampMs: 1733000000000, stampCounter: 0, stampReplica: "6F9A", revision: 1, writtenAt: "")
        /// ```
        public init(
            key: String, value: String?, stampMs: Int64, stampCounter: Int64, stampReplica: String, revision: Int64,
            writtenAt: String
        ) {
            (self.key, self.value, self.stampMs, self.stampCounter) = (key, value, stampMs, stampCounter)
            (self.stampReplica, self.revision, self.writtenAt) = (stampReplica, revision, writtenAt)
        }

        /// "MS COUNTER REPLICA".
        ///
        /// ```swift
        /// row.stamp  //=> "1733000000000 0 6F9A"
        /// ```
        public var stamp: String { "\(stampMs) \(stampCounter) \(stampReplica)" }

        /// The row for messages.
        ///
        /// ```swift
        /// "\(row)"  //=> "k1=a @1733000000000 0 6F9A rev 12 at 2026-12-04 10:00:00+00"
        /// ```
        public var description: String { "\(key)=\(value ?? "(removed)") @\(stamp) rev \(revision) at \(writtenAt)" }
    }

    /// The namespace's rows and tombstones on the server at `url`, by key: the row first, then the
    /// tombstone, if any (read with `psql`).
    ///
    /// ```swift
    /// try ReplicaConvergence.serverRows(server.url, "soak")["k1"]  //=> [k1=a @… rev 12 at …]
    /// ```
    public static func serverRows(_ url: String, _ namespace: String) throws -> [String: [ServerRow]] {
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
                throw ExternalCommandFailed(description: "unexpected psql row of namespace '\(namespace)': \(line)")
            }
            rows[fields[0], default: []].append(
                ServerRow(
                    key: fields[0], value: fields[1] == "v" ? fields[2] : nil, stampMs: ms, stampCounter: counter,
                    stampReplica: fields[5], revision: revision, writtenAt: fields[7]))
        }
        // A key set again after a removal keeps its older tombstone beside the row: the row first.
        return rows.mapValues { $0.sorted { $0.value != nil && $1.value == nil } }
    }

    /// What to log for the write a client killed with SIGKILL was in the middle of, from its
    /// `lines` (its last line "w KEY VALUE" with no result after it): the write counts when the
    /// replica at `file` holds it, under the client's id (`replicaID`) and a stamp it never logged
    /// ("s …"); otherwise it was never made, or lost already, and is not a candidate ("l KEY
    /// VALUE"). `mismatch` says when the replica holds under that stamp another value than the
    /// one written. Nil when the client was not in the middle of a write.
    ///
    /// ```swift
    /// try ReplicaConvergence.settleKilledWrite(lines, replica: file, replicaID: id)?.line  //=> "s k3 c0-7-12 1733000000000 0 6F9A"
    /// ```
    public static func settleKilledWrite(_ lines: [String], replica file: URL, replicaID id: String) throws -> (
        line: String, mismatch: String?
    )? {
        guard let last = lines.last, last.hasPrefix("w ") else { return nil }
        let fields = last.split(separator: " ").map(String.init)
        guard fields.count == 3 else { return nil }
        let (key, value) = (fields[1], fields[2] == "-" ? nil : fields[2])
        let probe = ReplicaFile(at: file, corruption: .fail)
        let logged = Set(lines.compactMap(Write.init).map(\.stamp))
        guard let held = try probe.stamp(of: key), held.replicaID == id,
            !logged.contains("\(held.stamp.milliseconds) \(held.stamp.counter) \(id)")
        else {
            return ("l \(key) \(value ?? "-")", nil)
        }
        let stored = try probe.sqlite.load().values[key]
        let mismatch =
            stored == value.map { .string($0) }
            ? nil
            : "the killed client's last write of \(key) is \(value ?? "a removal"), the replica holds \(stored.map { "\($0)" } ?? "nothing")"
        return ("s \(key) \(value ?? "-") \(held.stamp.milliseconds) \(held.stamp.counter) \(id)", mismatch)
    }

    /// The write made last of each key: the highest (stamp, replica id) among `writes`.
    public let lastWrites: [String: Write]
    /// The keys some replica holds otherwise than the server (value or stamp), sorted.
    public let divergentKeys: [String]
    /// The keys whose value or stamp on the server is not the write made last, sorted.
    public let keysNotHoldingLastWrite: [String]
    /// Writes still waiting in the replicas' outboxes, all replicas together.
    public let pending: Int
    /// One sentence per thing wrong; empty when the replicas converged on the writes made last.
    public let problems: [String]

    /// Compares `replicas` with the server's `serverRows` and the server with the last of
    /// `writes`, over `keys` (and every key any of them holds).
    ///
    /// ```swift
    /// ReplicaConvergence(keys: keys, writes: writes, serverRows: rows, replicas: dumps).problems  //=> []
    /// ```
    public init(keys: [String], writes: [Write], serverRows rows: [String: [ServerRow]], replicas: [Dump]) {
        var latest: [String: Write] = [:]
        for write in writes where latest[write.key].map(write.beats) ?? true {
            latest[write.key] = write
        }
        lastWrites = latest
        let onServer = rows.compactMapValues { $0.first?.value }
        let serverStamps = onServer.keys.reduce(into: [String: String]()) { $0[$1] = rows[$1]?.first?.stamp }
        var allKeys = Set(keys).union(onServer.keys).union(latest.keys)
        for dump in replicas { allKeys.formUnion(dump.values.keys) }
        var problems: [String] = []
        var divergent: [String] = []
        var notLast: [String] = []
        for key in allKeys.sorted() {
            let winner = latest[key]
            if onServer[key] != winner?.value || (winner != nil && onServer[key] != nil && serverStamps[key] != winner?.stamp) {
                notLast.append(key)
                problems.append(
                    "\(key) holds \(rows[key] ?? []) on the server, the write made last was \(winner.map(String.init(describing:)) ?? "none")"
                )
            }
            let differing = replicas.indices.filter {
                replicas[$0].values[key] != onServer[key] || replicas[$0].stamps[key] != serverStamps[key]
            }
            if !differing.isEmpty {
                divergent.append(key)
                let held = differing.map {
                    "replica \($0): \(replicas[$0].values[key] ?? "nothing") @\(replicas[$0].stamps[key] ?? "-")"
                }
                problems.append(
                    "\(key) on the server \(onServer[key] ?? "nothing") @\(serverStamps[key] ?? "-"), \(held.joined(separator: "; "))"
                )
            }
        }
        for (index, dump) in replicas.enumerated() where dump.pending != 0 {
            problems.append("replica \(index) still has \(dump.pending) pending")
        }
        (divergentKeys, keysNotHoldingLastWrite, pending) = (divergent, notLast, replicas.map(\.pending).reduce(0, +))
        self.problems = problems
    }
}
