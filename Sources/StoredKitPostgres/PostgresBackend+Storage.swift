import StoredKit

// Reading and writing the namespace's rows; every function here runs with `state` locked,
// inside the caller's transaction on `connection`.
extension PostgresBackend {
    /// Brings `state.cached` up to the namespace's current revision; returns whether it moved.
    func refresh(_ state: inout State, _ connection: PostgresConnection) throws -> Bool {
        let since = state.cached != nil ? state.revision : nil
        // Moved out, so the read mutates the only reference instead of copying every value.
        let base = state.cached
        state.cached = nil
        defer { if state.cached == nil { state.cached = base } }
        let (snapshot, current) = try read(since: since, into: base, &state, connection)
        if base != nil && current == state.revision { return false }
        state.cached = snapshot
        state.revision = current
        seenRevision.store(current, ordering: .releasing)
        return true
    }

    /// `snapshot` with what changed after revision `since` applied (everything when `since` or
    /// `snapshot` is nil, or when the namespace calls for a whole read, see
    /// ``PostgresSchema/selectSince``), the namespace's schema version, and its revision: one
    /// statement (two when a whole read turns out due), decoded straight from the result.
    func read(
        since: Int64?, into snapshot: BackendSnapshot?, _ state: inout State, _ connection: PostgresConnection
    ) throws -> (snapshot: BackendSnapshot, revision: Int64) {
        if var result = snapshot, let since {
            var rowMissing = false
            let knownToken = state.notifyToken
            let revision = try connection.query(PostgresSchema.selectSince, [namespace, String(since)]) { rows in
                let header = Self.header(of: rows)
                rowMissing = header.row == nil
                // No namespace row: it was deleted, which a store that had a revision must see.
                guard !(header.wholeDue ?? (since > 0)) else { return Int64?.none }
                // Another token: the row was deleted and created again (its revisions started over, and
                // may have passed `since`), so what the snapshot holds of the old row may be gone.
                guard knownToken == nil || header.token == knownToken else { return Int64?.none }
                apply(rows, skipping: header.row, to: &result, whole: false, &state)
                result.schemaVersion = header.schemaVersion
                state.notifyToken = header.token
                return header.revision
            }
            if let revision {
                state.accessLost = false
                result.events = []
                return (result, revision)
            }
            // A row that vanished may be a rule revoked (``PostgresAccess``), not a namespace deleted: then
            // the store keeps its last values (observers are not told every key went) and hears why once.
            if rowMissing, state.server?.underAccessControl == true, let lost = try lostAccess(connection) {
                if !state.accessLost { state.pendingEvents.append(.reloadFailed(lost)) }
                state.accessLost = true
                result.events = []
                return (result, state.revision)
            }
        }
        state.accessLost = false
        var result = BackendSnapshot()
        let revision = try connection.query(PostgresSchema.selectAll, [namespace]) { rows in
            let header = Self.header(of: rows)
            result.values.reserveCapacity(Int(rows.rowCount))
            apply(rows, skipping: header.row, to: &result, whole: true, &state)
            result.schemaVersion = header.schemaVersion
            state.notifyToken = header.token
            return header.revision
        }
        return (result, revision)
    }

    /// The header row of ``PostgresSchema/selectAll`` or ``PostgresSchema/selectSince`` (the
    /// first; looked for, since UNION ALL promises no order), or zeros when there is none.
    private static func header(
        of rows: PostgresResult
    ) -> (row: Int32?, revision: Int64, schemaVersion: Int, wholeDue: Bool?, token: String?) {
        guard let row = (0..<rows.rowCount).first(where: { rows.has($0, 0, PostgresSchema.headerRow) }) else {
            return (nil, 0, 0, nil, nil)
        }
        return (
            row, rows.integer(row, 4) ?? 0, Int(rows.integer(row, 5) ?? 0), rows.text(row, 3).map { $0 == "t" },
            rows.text(row, 7)
        )
    }

    /// Applies the value and removed-key rows of `rows` (all but the header) to `result`, the
    /// namespace's every row when `whole`.
    private func apply(
        _ rows: PostgresResult, skipping header: Int32?, to result: inout BackendSnapshot, whole: Bool, _ state: inout State
    ) {
        witnessStamps(rows)
        if whole { state.hiddenSpellings = [] }
        for row in 0..<rows.rowCount where row != header {
            guard let key = rows.text(row, 1) else { continue }
            guard !rows.has(row, 0, PostgresSchema.removedRow) else {
                // The removal of a row that reads did not show leaves the shown one alone.
                if result.values.shownKey(for: key).utf8.elementsEqual(key.utf8) { result.values[key] = nil }
                state.hiddenSpellings.removeAll { $0.utf8.elementsEqual(key.utf8) }
                continue
            }
            if isHidden(key, in: &result, whole: whole, &state) { continue }
            let type = rows.text(row, 2) ?? ""
            if let value = PostgresValueColumns.value(type: type, rows, row: row, first: 3) {
                result.values[key] = value
            } else {
                // Left in the table untouched; the key reads as absent until the app writes it.
                result.values[key] = nil
                let found = PostgresValueColumns.summary(type: type, rows, row: row, first: 3)
                state.pendingEvents.append(.decodingFailed(key: key, expected: type, found: found))
            }
        }
    }

    /// Moves the clock past the newest stamp in `rows` (values, removed keys, and the header's
    /// newest tombstone in a whole read): a write made after this read is stamped above everything
    /// it showed, whatever this machine's wall clock says. The server clamps every stamp to its
    /// own clock plus the skew, so no row moves the clock further ahead than that.
    private func witnessStamps(_ rows: PostgresResult) {
        let first = PostgresSchema.firstStampColumn
        var newest = HybridTimestamp.zero
        for row in 0..<rows.rowCount {
            guard let milliseconds = rows.integer(row, first), milliseconds >= newest.milliseconds else { continue }
            let stamp = HybridTimestamp(milliseconds: milliseconds, counter: UInt32(clamping: rows.integer(row, first + 1) ?? 0))
            if stamp > newest { newest = stamp }
        }
        if newest > .zero { clock.witness(newest) }
    }

    /// Whether the row of `key` is another spelling (up to Unicode normalisation) of a key `result`
    /// holds under other bytes, which reads do not show. Whatever order the rows come in, reads
    /// show the spelling first in byte order, as in an SQLite file; a whole read reports each pair.
    private func isHidden(_ key: String, in result: inout BackendSnapshot, whole: Bool, _ state: inout State) -> Bool {
        guard let index = result.values.index(forKey: key) else { return false }
        let shown = result.values[index].key
        guard !shown.utf8.elementsEqual(key.utf8) else { return false }
        if whole, key.utf8.lexicographicallyPrecedes(shown.utf8) {
            result.values.remove(at: index)  // this row's spelling comes first: the one read before is hidden
            state.hiddenSpellings.append(shown)
            state.pendingEvents.append(.equivalentKeys(path: location, shown: key, hidden: shown))
            return false
        }
        if !state.hiddenSpellings.contains(where: { $0.utf8.elementsEqual(key.utf8) }) { state.hiddenSpellings.append(key) }
        if whole { state.pendingEvents.append(.equivalentKeys(path: location, shown: shown, hidden: key)) }
        return true
    }

    /// Writes `changes` under a new revision of the namespace (its bump queues the notification);
    /// returns that revision, recorded as ``ownCommit`` so the listener does not take it for
    /// someone else's, whether the namespace row had to be created again (it went since the
    /// last read or write: the cache is then to be read whole), and which writes lost or were
    /// clamped (``StampOutcome``). Each key is written with its stamp (the `set`'s, or one taken
    /// now) by the stamped statements, which take effect only when it is the key's latest.
    /// A key with several spellings is written under the one reads show, and
    /// removed in every spelling (see ``isHidden(_:in:whole:_:)``).
    func write(
        _ changes: BackendChanges, _ state: inout State, _ connection: PostgresConnection
    ) throws -> (revision: Int64, recreated: Bool, outcome: StampOutcome) {
        // Every row's columns first: a value refused here leaves the transaction untouched.
        let rows = try changes.values.sorted(by: { $0.key < $1.key }).map { key, value in
            (key: key, columns: try value.map { try PostgresValueColumns.columns(for: $0, key: key) })
        }
        let bump = [namespace, changes.schemaVersion.map(String.init)]
        // The token says the last read or write found the row: then the cheaper UPDATE, and the upsert only if it is gone.
        let rowFound = state.notifyToken != nil
        var bumped = rowFound ? try connection.query(PostgresSchema.bumpExistingRevision, bump) : []
        let recreated = rowFound && bumped.isEmpty
        if bumped.isEmpty { bumped = try connection.query(PostgresSchema.bumpRevision, bump) }
        guard let text = bumped.first?.first ?? nil, let revision = Int64(text) else {
            throw StoreError.postgres(
                server: (try? PostgresAddress(url))?.description ?? location, code: "XX000",
                message: "the namespace row returned no revision")
        }
        ownCommit.store(revision, ordering: .releasing)
        if let token = bumped.first?.last ?? nil { state.notifyToken = token }
        let revisionText = String(revision)
        var outcome = StampOutcome()
        // Sorted, so two transactions writing the same keys lock their rows in the same order.
        for (key, row) in rows {
            let stamp = changes.stamps[key] ?? clock.tick()
            let stamped = [String(stamp.milliseconds), String(stamp.counter), replicaID, skewMilliseconds]
            let shown = state.cached?.values.shownKey(for: key) ?? key
            if let (type, columns) = row {
                let recorded = try connection.query(
                    PostgresSchema.stampedUpsert, [namespace, shown, type] + columns + [revisionText] + stamped)
                try settle(key, as: shown, stamp, recorded: recorded.first, &outcome, connection)
            } else {
                // The spelling reads show decides; the others go with it.
                let recorded = try connection.query(PostgresSchema.stampedRemove, [namespace, shown, revisionText] + stamped)
                try settle(key, as: shown, stamp, recorded: recorded.first, &outcome, connection)
                var others = state.hiddenSpellings.filter { $0 == key }  // `==` is canonical equivalence
                others.append(key)
                for other in others where !other.utf8.elementsEqual(shown.utf8) {
                    try connection.query(PostgresSchema.stampedRemove, [namespace, other, revisionText] + stamped)
                }
                state.hiddenSpellings.removeAll { $0 == key }
            }
        }
        if revision % pruneEvery == 0 {
            try connection.query(PostgresSchema.pruneTombstones, [namespace, String(tombstoneRetention)])
        }
        return (revision, recreated, outcome)
    }

    /// Records in `outcome` what the stamped write of `key` (the row `written`) came to, from the
    /// stamp the server `recorded` (its `ms, counter`): below ours when clamped; none when it took
    /// no effect, which is this very write applied already (a retry after a lost reply: the
    /// server holds our stamp and replica id) or a later write, which won.
    func settle(
        _ key: String, as written: String, _ stamp: HybridTimestamp, recorded: [String?]?, _ outcome: inout StampOutcome,
        _ connection: PostgresConnection
    ) throws {
        if let recorded {
            let milliseconds = recorded.first.flatMap { $0.flatMap { Int64($0) } }
            if let milliseconds, milliseconds < stamp.milliseconds { outcome.clamped.append(key) }
            return
        }
        let held = try connection.query(PostgresSchema.keyStamp, [namespace, written]).first
        if let held, held.count == 3, held[0] == String(stamp.milliseconds), held[1] == String(stamp.counter),
            held[2] == replicaID
        {
            return
        }
        outcome.lost.append(key)
    }

    /// Tells the store what `outcome` says (through the next snapshot's events): each lost write
    /// with the winner the cache now holds, each clamped stamp with the skew allowed.
    func report(_ outcome: StampOutcome, _ state: inout State) {
        guard !outcome.isQuiet else { return }
        for key in outcome.lost {
            state.pendingEvents.append(.lostToLaterWrite(key: key, winner: state.cached?.values[key]))
        }
        let server = (try? PostgresAddress(url))?.description ?? location
        for key in outcome.clamped {
            state.pendingEvents.append(.stampClamped(key: key, server: server, allowedSkew: maximumClockSkew))
        }
    }

    /// The one key a batch sets, when that is all it does (no removal, no schema version): it
    /// commits alone, in one call (``PostgresSchema/writeAlone``).
    static func aloneUpsert(_ changes: BackendChanges) -> (key: String, value: StoredValue)? {
        guard changes.schemaVersion == nil, changes.values.count == 1, let (key, value) = changes.values.first,
            let value
        else { return nil }
        return (key, value)
    }

    /// Commits one stamped upsert in one call that commits on its own (``PostgresSchema/writeAlone``).
    /// When others committed since our last read (the revision jumped), the row was created again,
    /// or a later write held the key (ours lost), their rows are read right after, in one statement:
    /// that snapshot is at or after our commit, and becomes the cache as a whole (our row is in
    /// it, or a later one's). Returns it then, nil otherwise, as ``commit(_:)`` does.
    func commitAlone(key: String, value: StoredValue, stamp: HybridTimestamp, _ state: inout State) throws -> BackendSnapshot? {
        let (type, columns) = try PostgresValueColumns.columns(for: value, key: key)
        let shown = state.cached?.values.shownKey(for: key) ?? key  // another spelling's row would stay hidden
        let previous = state.revision
        let rowFound = state.notifyToken != nil  // see ``write(_:_:_:)``
        var recreated = false
        let server = try server(&state)
        var token: String?
        var outcome = StampOutcome()
        let revision = try withOwnCommit {
            try server.withStatement(timeout: timeout, notices: relay) { connection -> Int64 in
                // It commits, and notifies, before its answer arrives: the revision it will most
                // likely get is marked first. Should another writer's commit take that revision,
                // ours gets a later one, the read below catches theirs up, and our NOTIFY may
                // signal the watcher once (a reload that finds nothing new).
                ownCommit.store(previous + 1, ordering: .releasing)
                let parameters =
                    [namespace, shown, type] + columns
                    + [String(stamp.milliseconds), String(stamp.counter), replicaID, skewMilliseconds]
                let row = try connection.query(PostgresSchema.writeAlone, parameters).first
                guard let row, row.count == 5, let text = row[0], let revision = Int64(text) else {
                    throw StoreError.postgres(
                        server: server.address.description, code: "XX000", message: "the namespace row returned no revision")
                }
                ownCommit.store(revision, ordering: .releasing)
                token = row[1]
                recreated = rowFound && row[4] == "t"
                let recorded = row[2] == nil ? nil : [row[2], row[3]]
                try settle(key, as: shown, stamp, recorded: recorded, &outcome, connection)
                return revision
            }
        }
        if let token { state.notifyToken = token }
        if revision % pruneEvery == 0 {
            // Upkeep, not part of the write: a failure leaves it to a later commit.
            _ = try? server.withStatement(timeout: timeout) { connection in
                try connection.query(PostgresSchema.pruneTombstones, [namespace, String(tombstoneRetention)])
            }
        }
        guard revision != previous + 1 || recreated || !outcome.lost.isEmpty else {
            record(BackendChanges(values: [key: value]), revision: revision, &state)
            report(outcome, &state)
            return outcome.isQuiet ? nil : takeSnapshot(&state)
        }
        // A row created again: what the cache holds of the old one may be gone, so the read is whole.
        if recreated { state.cached = nil }
        do {
            _ = try server.withReading(timeout: timeout, notices: relay) { connection in try refresh(&state, connection) }
        } catch {
            // Committed, but the others' rows are unread: read the namespace whole next time, and now.
            state.cached = nil
            state.revision = revision
            seenRevision.store(revision, ordering: .releasing)
            changed(.max)
            return nil
        }
        learnToken(&state)  // a row created again has a new token
        report(outcome, &state)
        return takeSnapshot(&state)
    }

    /// Folds a committed batch into the cached snapshot.
    func record(_ changes: BackendChanges, revision: Int64, _ state: inout State) {
        learnToken(&state)
        // Moved out, so the batch changes the only reference instead of copying every value.
        if var snapshot = state.cached.take() {
            snapshot.apply(changes)
            state.cached = snapshot
        }
        state.revision = revision
        seenRevision.store(revision, ordering: .releasing)
    }

    /// PostgreSQL text cannot hold U+0000, and keys are text: refuse such a key before anything is sent.
    func validate(_ changes: BackendChanges) throws {
        for key in changes.values.keys where key.utf8.contains(0) {
            // `refused`: the engine drops this write alone; any other error kept the whole batch pending for ever.
            throw StoreError.refused(key: key, reason: "PostgreSQL text cannot hold U+0000 in a key; choose a key without it")
        }
    }
}
