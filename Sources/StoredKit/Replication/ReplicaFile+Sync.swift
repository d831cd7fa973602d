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
    /// A `schemaVersion` above the file's (another replica's migration reached the server) becomes
    /// the file's, so this replica's next open does not migrate the migrated values again.
    /// With `wholeExcept` (the keys a whole read of the server named), every key the server no
    /// longer names and whose local write is not waiting to be sent is removed: it went from the
    /// server while the replica was away longer than its tombstones are kept.
    /// Returns the keys whose pending local write lost to one of `merged`, and the writes the file
    /// took (removals of keys gone from the server included).
    @discardableResult
    package func record(
        _ cursor: SyncCursor, merging merged: [RemoteWrite] = [], schemaVersion: Int? = nil,
        wholeExcept named: Set<String>? = nil
    ) throws -> (lost: [String], taken: [RemoteWrite]) {
        var merged = merged
        if let named {
            let gone = try sqlite.withCompanionReading { connection in
                var keys: [String] = []
                try connection.withStatement(ReplicaSchema.settledKeys) { statement in
                    while try statement.step() { keys.append(statement.text(at: 0)) }
                }
                return keys.filter { !named.contains($0) }
            }
            // A removal stamped just above the key's own, so it wins the merge and nothing else.
            for key in gone {
                guard let held = try stamp(of: key) else { continue }
                let above =
                    held.stamp.counter == .max
                    ? HybridTimestamp(milliseconds: held.stamp.milliseconds + 1, counter: 0)
                    : HybridTimestamp(milliseconds: held.stamp.milliseconds, counter: held.stamp.counter + 1)
                merged.append(RemoteWrite(key: key, value: nil, stamp: above, replicaID: held.replicaID))
            }
        }
        return try merge(merged, schemaVersion: schemaVersion) { connection in
            try connection.withStatement(ReplicaSchema.recordSync) { statement in
                try statement.bind(
                    .text(cursor.server), .text(cursor.namespace), .integer(cursor.revision),
                    cursor.notifyToken.map { .text($0) } ?? .null,
                    cursor.lastSynced.map { .real($0.timeIntervalSince1970) } ?? .null)
                try statement.run()
            }
        }
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

    /// Puts `key` back to what the server holds (`server`: its value or tombstone with its stamp;
    /// nil: nothing) after the server refused the local write `refused`, which leaves the outbox.
    /// A write of the key made since stays, and is sent. Returns whether the key went back.
    @discardableResult
    package func revert(_ refused: PendingWrite, to server: RemoteWrite?) throws -> Bool {
        try syncTransaction(
            durability: .deferred, changedValues: { $0 },
            decide: { _, connection in
                guard let held = try heldStamp(of: refused.key, connection), held.stamp == refused.stamp,
                    held.replicaID == refused.replicaID
                else { return (BackendChanges(), false) }
                return (BackendChanges(values: [refused.key: server?.value ?? nil]), true)
            },
            record: { changes, connection in
                guard !changes.values.isEmpty else { return }
                if let server {
                    try upsertStamp(server.key, server.stamp, server.replicaID, queuedAt: nil, connection)
                } else {
                    try connection.withStatement(ReplicaSchema.forgetStamp) { statement in
                        try statement.bind(.text(refused.key))
                        try statement.run()
                    }
                }
            }
        )
    }

    /// The stamp the file holds for `key` and the replica that made it (nil: none).
    package func stamp(of key: String) throws -> (stamp: HybridTimestamp, replicaID: String)? {
        try sqlite.withCompanionReading { connection in
            guard try hasTables(connection) else { return nil }
            return try heldStamp(of: key, connection).map { ($0.stamp, $0.replicaID) }
        }
    }
}
