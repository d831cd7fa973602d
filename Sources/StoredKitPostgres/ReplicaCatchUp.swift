import StoredKit

/// The catch-up read of a replica: what the server's namespace holds that changed since the
/// replica's cursor, each row with its stamp, in one statement (``PostgresSchema/selectSince``;
/// ``PostgresSchema/selectAllWithRemovals`` when there is no cursor, or the namespace calls for a whole read).
///
/// ```swift
/// let read = try ReplicaCatchUp.read(namespace: "user:42", since: cursor, connection)
/// read.writes.map(\.key)  //=> ["volume"]
/// ```
enum ReplicaCatchUp {
    /// What one read found.
    struct Read {
        /// The rows changed since the cursor (all of them after a whole read); nil values are removals.
        var writes: [ReplicaFile.RemoteWrite] = []
        /// The namespace's revision the read saw (0: never written).
        var revision: Int64 = 0
        var token: String?
        /// The namespace's schema version: how far the migrations of any replica took its data.
        var schemaVersion = 0
        /// Rows that did not decode, left on the server untouched.
        var events: [StoreEvent] = []
        /// Whether this was a whole read: `writes` is everything the server holds, tombstones it
        /// still keeps included, and a key it does not name is gone from it.
        var whole = false
        /// Keys of rows that did not decode: on the server still, though not in `writes`.
        var undecodable: [String] = []
        /// Whether the namespace's row was there: a role whose access rule was revoked sees none,
        /// nor any value, which must not read as every key removed.
        var namespaceFound = false
    }

    static func read(namespace: String, since cursor: ReplicaFile.SyncCursor?, _ connection: PostgresConnection) throws -> Read {
        if let cursor, cursor.revision > 0 {
            let partial = try connection.query(PostgresSchema.selectSince, [namespace, String(cursor.revision)]) { rows in
                let header = header(of: rows)
                // Deleted, created again (another token) or pruned past the cursor: read it whole.
                guard let row = header.row, header.wholeDue != true, header.token == cursor.notifyToken else {
                    return Read?.none
                }
                var read = decode(rows, skipping: row, revision: header.revision, token: header.token)
                read.schemaVersion = header.schemaVersion
                read.namespaceFound = true
                return read
            }
            if let partial { return partial }
        }
        return try connection.query(PostgresSchema.selectAllWithRemovals, [namespace]) { rows in
            let header = header(of: rows)
            var read = decode(rows, skipping: header.row, revision: header.revision, token: header.token)
            read.whole = true
            read.namespaceFound = header.row != nil
            read.schemaVersion = header.schemaVersion
            return read
        }
    }

    /// What the server holds of `key` now (``PostgresSchema/selectKey``): its value or tombstone
    /// with the stamp, or nil when it holds neither (or the role may not read it).
    static func current(
        _ key: String, namespace: String, _ connection: PostgresConnection
    ) throws -> ReplicaFile.RemoteWrite? {
        try connection.query(PostgresSchema.selectKey, [namespace, key]) { rows in
            decode(rows, skipping: nil, revision: 0, token: nil).writes.first
        }
    }

    /// The header row (looked for: UNION ALL promises no order) and what it says.
    private static func header(
        of rows: PostgresResult
    ) -> (row: Int32?, revision: Int64, wholeDue: Bool?, token: String?, schemaVersion: Int) {
        guard let row = (0..<rows.rowCount).first(where: { rows.has($0, 0, PostgresSchema.headerRow) }) else {
            return (nil, 0, nil, nil, 0)
        }
        return (
            row, rows.integer(row, 4) ?? 0, rows.text(row, 3).map { $0 == "t" }, rows.text(row, 7),
            Int(rows.integer(row, 5) ?? 0)
        )
    }

    private static func decode(_ rows: PostgresResult, skipping header: Int32?, revision: Int64, token: String?) -> Read {
        var read = Read(revision: revision, token: token)
        let first = PostgresSchema.firstStampColumn
        read.writes.reserveCapacity(Int(rows.rowCount))
        for row in 0..<rows.rowCount where row != header {
            guard let key = rows.text(row, 1) else { continue }
            let stamp = HybridTimestamp(
                milliseconds: rows.integer(row, first) ?? 0, counter: UInt32(clamping: rows.integer(row, first + 1) ?? 0))
            let replica = rows.text(row, first + 2) ?? ""
            if rows.has(row, 0, PostgresSchema.removedRow) {
                read.writes.append(.init(key: key, value: nil, stamp: stamp, replicaID: replica))
                continue
            }
            let type = rows.text(row, 2) ?? ""
            guard let value = PostgresValueColumns.value(type: type, rows, row: row, first: 3) else {
                let found = PostgresValueColumns.summary(type: type, rows, row: row, first: 3)
                read.events.append(.decodingFailed(key: key, expected: type, found: found))
                read.undecodable.append(key)
                continue
            }
            read.writes.append(.init(key: key, value: value, stamp: stamp, replicaID: replica))
        }
        return read
    }
}
