// Reading and writing the namespace's rows; every function here runs with `state` locked,
// inside the caller's transaction on `connection`.
extension PostgresBackend {
    /// Brings `state.cached` up to the namespace's current revision; returns whether it moved.
    func refresh(_ state: inout State, _ connection: PostgresConnection) throws -> Bool {
        let row = try connection.query(PostgresSchema.selectNamespace, [namespace]).first
        let current = row?.first.flatMap { $0.flatMap { Int64($0) } } ?? 0
        if state.cached != nil && current == state.revision { return false }
        // A revision that went back means the namespace was deleted and written again: read it whole.
        let since = state.cached != nil && current > state.revision ? state.revision : nil
        state.cached = try read(since: since, into: state.cached, &state, connection)
        state.revision = current
        seenRevision.store(current, ordering: .releasing)
        return true
    }

    /// `snapshot` with what changed after revision `since` applied (everything when `since` or
    /// `snapshot` is nil), and the namespace's schema version.
    func read(
        since: Int64?, into snapshot: BackendSnapshot?, _ state: inout State, _ connection: PostgresConnection
    ) throws -> BackendSnapshot {
        var result = snapshot ?? BackendSnapshot()
        let namespaceRow = try connection.query(PostgresSchema.selectNamespace, [namespace]).first
        func number(_ index: Int) -> Int64? { namespaceRow.flatMap { $0.count > index ? $0[index].flatMap { Int64($0) } : nil } }
        let rows: [[String?]]
        // Removals at or below the pruned revision left no tombstone: only a whole read sees them.
        if let since, snapshot != nil, since >= number(2) ?? 0 {
            rows = try connection.query(PostgresSchema.selectChanged, [namespace, String(since)])
            for removed in try connection.query(PostgresSchema.selectRemoved, [namespace, String(since)]) {
                if let key = removed.first ?? nil { result.values[key] = nil }
            }
        } else {
            result.values = [:]
            rows = try connection.query(PostgresSchema.selectAll, [namespace])
        }
        for row in rows {
            guard let key = row.first ?? nil else { continue }
            let type = row.count > 1 ? row[1] ?? "" : ""
            let columns = row.dropFirst(2)
            if let value = PostgresValueColumns.value(type: type, columns: columns) {
                result.values[key] = value
            } else {
                // Left in the table untouched; the key reads as absent until the app writes it.
                result.values[key] = nil
                state.pendingEvents.append(
                    .decodingFailed(key: key, expected: type, found: PostgresValueColumns.summary(type: type, columns: columns)))
            }
        }
        result.schemaVersion = number(1).map { Int($0) } ?? 0
        result.events = []
        return result
    }

    /// Writes `changes` under a new revision of the namespace; returns that revision.
    func write(_ changes: BackendChanges, _ connection: PostgresConnection) throws -> Int64 {
        // Every row's columns first: a value refused here leaves the transaction untouched.
        let rows = try changes.values.sorted(by: { $0.key < $1.key }).map { key, value in
            (key: key, columns: try value.map { try PostgresValueColumns.columns(for: $0, key: key) })
        }
        let bumped = try connection.query(PostgresSchema.bumpRevision, [namespace, changes.schemaVersion.map(String.init)])
        guard let text = bumped.first?.first ?? nil, let revision = Int64(text) else {
            throw StoreError.postgres(
                server: (try? PostgresAddress(url))?.description ?? location, code: "XX000",
                message: "the namespace row returned no revision")
        }
        let revisionText = String(revision)
        // Sorted, so two transactions writing the same keys lock their rows in the same order.
        for (key, row) in rows {
            if let (type, columns) = row {
                try connection.query(PostgresSchema.upsert, [namespace, key, type] + columns + [revisionText])
            } else {
                try connection.query(PostgresSchema.remove, [namespace, key, revisionText])
            }
        }
        if revision % pruneEvery == 0 {
            try connection.query(PostgresSchema.pruneTombstones, [namespace, String(tombstoneRetention)])
        }
        return revision
    }

    /// Folds a committed batch into the cached snapshot.
    func record(_ changes: BackendChanges, revision: Int64, _ state: inout State) {
        if var snapshot = state.cached {
            snapshot.apply(changes)
            state.cached = snapshot
        }
        state.revision = revision
        seenRevision.store(revision, ordering: .releasing)
    }

    /// PostgreSQL text cannot hold U+0000, and keys are text: refuse such a key before anything is sent.
    func validate(_ changes: BackendChanges) throws {
        for key in changes.values.keys where key.utf8.contains(0) {
            throw StoreError.unrepresentable(
                key: key, reason: "PostgreSQL text cannot hold U+0000 in a key; choose a key without it")
        }
    }
}
