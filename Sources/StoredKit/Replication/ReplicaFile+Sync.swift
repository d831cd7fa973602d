import Foundation

/// What a replica records of its conversations with a server: which server and namespace it
/// mirrors, how far it has read, and which of its writes the server has recorded.
extension ReplicaFile {
    /// How far the replica has read its server, as the file says (see ``ReplicaSchema``).
    package struct SyncCursor: Sendable, Equatable {
        /// The server's address, without a password.
        package var server: String
        package var namespace: String
        /// The namespace's revision the replica has read up to (0: nothing read yet).
        package var revision: Int64
        /// The namespace row's notification token when it was read (nil: no row then).
        package var notifyToken: String?
        /// When the replica last finished a round with the server.
        package var lastSynced: Date?

        /// A cursor of `namespace` on `server`.
        package init(server: String, namespace: String, revision: Int64, notifyToken: String?, lastSynced: Date?) {
            self.server = server
            self.namespace = namespace
            self.revision = revision
            self.notifyToken = notifyToken
            self.lastSynced = lastSynced
        }
    }

    /// The file's cursor, nil when it never read a server.
    package func syncCursor() throws -> SyncCursor? {
        try sqlite.withCompanionReading { connection in
            guard try hasTables(connection) else { return nil }
            return try connection.withStatement(ReplicaSchema.selectSync) { statement in
                guard try statement.step() else { return nil }
                let token = statement.value(at: 3) == .null ? nil : statement.text(at: 3)
                let last = statement.value(at: 4)
                return SyncCursor(
                    server: statement.text(at: 0), namespace: statement.text(at: 1), revision: statement.integer(at: 2),
                    notifyToken: token, lastSynced: last == .null ? nil : Date(timeIntervalSince1970: Self.real(last)))
            }
        }
    }

    /// Records `cursor`, with `merged` (the server's writes the replica had not seen, see
    /// ``merge(_:)``) in the same transaction, so the file never holds a cursor past what it merged.
    /// Returns the keys whose pending local write lost to one of `merged`.
    @discardableResult
    package func record(_ cursor: SyncCursor, merging merged: [RemoteWrite] = []) throws -> [String] {
        let lost = try merge(merged) { connection in
            try connection.withStatement(ReplicaSchema.recordSync) { statement in
                try statement.bind(
                    .text(cursor.server), .text(cursor.namespace), .integer(cursor.revision),
                    cursor.notifyToken.map { .text($0) } ?? .null,
                    cursor.lastSynced.map { .real($0.timeIntervalSince1970) } ?? .null)
                try statement.run()
            }
        }
        return lost
    }

    /// Takes the outbox entries of `sent` out, the server having recorded them: each key's entry
    /// leaves when it still holds the write sent (a write made since stays queued). A key in
    /// `clamped` was recorded with that earlier stamp (its own was too far ahead of the server's
    /// clock): the file takes it, so the replica and the server agree on who wins later.
    package func acknowledge(_ sent: [PendingWrite], clamped: [String: HybridTimestamp] = [:]) throws {
        guard !sent.isEmpty else { return }
        try syncTransaction(
            durability: .deferred, decide: { _, _ in (BackendChanges(), ()) },
            record: { _, connection in
                for write in sent {
                    if let recorded = clamped[write.key] {
                        try connection.withStatement(ReplicaSchema.adoptStamp) { statement in
                            try statement.bind(
                                .text(write.key), .integer(write.stamp.milliseconds), .integer(Int64(write.stamp.counter)),
                                .integer(recorded.milliseconds), .integer(Int64(recorded.counter)))
                            try statement.run()
                        }
                        continue
                    }
                    try connection.withStatement(ReplicaSchema.acknowledgeWrite) { statement in
                        try statement.bind(
                            .text(write.key), .integer(write.stamp.milliseconds), .integer(Int64(write.stamp.counter)))
                        try statement.run()
                    }
                }
            })
    }

    /// The stamp the file holds for `key` and the replica that made it (nil: none).
    package func stamp(of key: String) throws -> (stamp: HybridTimestamp, replicaID: String)? {
        try sqlite.withCompanionReading { connection in
            guard try hasTables(connection) else { return nil }
            return try heldStamp(of: key, connection).map { ($0.stamp, $0.replicaID) }
        }
    }
}
