import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// Opening, reading and writing the file; every function here runs with `state` locked.
extension SQLiteBackend {
    /// The open connection, opening the file (and applying the corruption policy) on first use.
    func open(_ state: inout State) throws -> SQLiteConnection {
        if let connection = state.connection { return connection }
        try SQLiteConnection.checkLibraryVersion()
        try FileSystem.createDirectories(SystemCall.directory(of: path))
        try FileSystem.createPrivateFile(path)
        // SQLite would open a FIFO planted at the path and wait on it.
        try FileSystem.requireRegularFileIfPresent(path)
        let connection: SQLiteConnection
        let eventCount = state.pendingEvents.count
        do {
            connection = try openAndLoad(&state)
        } catch StoreError.sqlite(_, let code, let message) where SQLiteResultCode(code).isCorruption {
            // Rows that failed to decode in a file now known to be damaged are not worth reporting.
            state.pendingEvents.removeSubrange(eventCount...)
            let reason = "\(message); \(SQLiteResultCode(code).description)"
            guard corruption == .quarantine else {
                throw StoreError.corruptFile(path: path, reason: reason, quarantinedAt: nil)
            }
            // nil: another process moved the file aside first; what it left at the path is opened.
            if let movedTo = try quarantine() {
                state.pendingEvents.append(.quarantined(path: path, movedTo: movedTo, reason: reason))
            }
            try FileSystem.createPrivateFile(path)
            connection = try openAndLoad(&state)
        } catch {
            // The next open reads the rows again and reports again those that do not decode.
            state.pendingEvents.removeSubrange(eventCount...)
            state.cached = nil
            throw error
        }
        state.connection = connection
        state.signalledDataVersion = state.loadedDataVersion
        state.signalledFile = nil
        return connection
    }

    /// Opens, configures and reads everything: a damaged file shows up here, while the policy still
    /// applies. Records which file was opened: the one at the path just before and after SQLite
    /// opened it (else `nil`, and the next commit or load opens the file again).
    private func openAndLoad(_ state: inout State) throws -> SQLiteConnection {
        let before = try FileIdentity.of(path: path)
        let connection = try SQLiteConnection(path: path)
        let after = try FileIdentity.of(path: path)
        state.openedFile = after != nil && FileIdentity.sameFile(before, after) ? after : nil
        let schema = try checkOwnership(connection)
        let mode = try switchToWriteAheadLog(connection)
        guard case .text(let journalMode) = mode, journalMode.lowercased() == "wal" else {
            throw StoreError.journalModeUnavailable(path: path, mode: mode?.summary ?? "none")
        }
        try connection.limitWriteAheadLog()
        if schema == .absent { try createSchema(connection) }
        try checkTablesCompile(connection)
        state.cached = nil
        _ = try connection.transaction { try refresh(&state, connection) }
        // Only once the data read without error: a damaged file is moved aside as it was found,
        // not with a repaired schema checkpointed into it. A file SQLite will not write is read as
        // it is: the triggers only matter to writes, which fail anyway, with the reason.
        if schema == .needsRepair, !connection.isReadOnly { try createSchema(connection) }
        return connection
    }

    /// What ``checkOwnership(_:)`` found.
    private enum SchemaCondition {
        /// This layout, or triggers whose text differs but which compile (another StoredKit version's).
        case current
        /// Our tables, with a trigger missing or not compiling, or the first layout's objects left.
        case needsRepair
        /// A new, empty file.
        case absent
    }

    /// Switching a new file to WAL needs it to itself for a moment. When several processes open
    /// a new file at once, SQLite answers some of them "busy" immediately instead of waiting
    /// (waiting could deadlock), so try again shortly, within the usual busy timeout.
    private func switchToWriteAheadLog(_ connection: SQLiteConnection) throws -> SQLiteColumnValue? {
        let deadline = ContinuousClock.now + .milliseconds(Int(SQLiteConnection.busyTimeoutMilliseconds))
        while true {
            do {
                return try connection.scalar("PRAGMA journal_mode = WAL")
            } catch StoreError.sqlite(_, let code, _) where SQLiteResultCode(code).isBusy && ContinuousClock.now < deadline {
                usleep(UInt32.random(in: 1_000...10_000))
            }
        }
    }

    /// Refuses another program's database before anything (even the journal mode) is changed:
    /// a file is ours when it carries our application ID, or when it is still empty. For ours,
    /// says whether the schema is current, needs its triggers repaired, or is still to be made.
    private func checkOwnership(_ connection: SQLiteConnection) throws -> SchemaCondition {
        // One transaction, so one snapshot: another process may be creating the schema right now,
        // and two separate reads could see its tables but not yet its application ID.
        var objects: [String: String] = [:]
        let applicationID = try connection.transaction {
            try connection.withStatement(SQLiteSchema.listObjects) { statement in
                while try statement.step() { objects[statement.text(at: 0)] = statement.text(at: 1) }
            }
            return try connection.integerPragma("application_id")
        }
        if applicationID == Int64(SQLiteSchema.applicationID) {
            if SQLiteSchema.isCurrent(objects) { return .current }
            if !SQLiteSchema.hasTables(objects) { return .absent }
            if SQLiteSchema.lacksParts(objects) { return .needsRepair }
            return try triggersCompile(connection) ? .current : .needsRepair
        }
        if applicationID == 0, SQLiteSchema.hasTables(objects) {
            // `sqlite3 … .dump | sqlite3 copy` keeps the tables but not the header's application ID
            // and user_version (the schema version): never guess the version migrations rely on.
            throw StoreError.restoredWithoutHeader(path: path)
        }
        guard applicationID == 0, objects.isEmpty else {
            throw StoreError.notStoredKitDatabase(
                path: path, reason: "application_id \(applicationID), other tables present")
        }
        return .absent
    }

    /// Whether triggers whose text differs from ours still compile: a bit flip naming a column
    /// that does not exist is not SQLite "corruption", and would otherwise fail the first write.
    private func triggersCompile(_ connection: SQLiteConnection) throws -> Bool {
        do {
            for sql in SQLiteSchema.settingOffTriggers { try connection.withStatement(sql) { _ in } }
            return true
        } catch StoreError.sqlite(_, let code, _) where SQLiteResultCode(code).isGenericError {
            return false
        }
    }

    /// A bit flip in a table's definition (a column name) is not SQLite "corruption": it surfaces
    /// only when a statement naming that column is prepared, so the first write would fail.
    /// Preparing one that names every column at open sends it to the corruption policy.
    /// (Triggers are compared by text instead; see ``SQLiteSchema/isCurrent(_:)``.)
    private func checkTablesCompile(_ connection: SQLiteConnection) throws {
        do {
            try connection.withStatement(SQLiteSchema.everyColumn) { _ in }
        } catch StoreError.sqlite(_, let code, let message) where SQLiteResultCode(code).isGenericError {
            throw StoreError.sqlite(path: path, code: SQLiteResultCode.corrupt.rawValue, message: "damaged schema: \(message)")
        }
    }

    private func createSchema(_ connection: SQLiteConnection) throws {
        try connection.transaction(.immediate) { try connection.execute(SQLiteSchema.create) }
    }

    /// Brings `state.cached` up to date inside the caller's transaction. Returns whether another
    /// connection had committed since the last refresh.
    ///
    /// Only rows with a `change_seq` above the last one seen are read, and the largest of those is
    /// the new last sequence. Everything is read when there is no snapshot yet or the sequence went
    /// backwards (the file was replaced or restored), which only a reload that found nothing newer checks.
    func refresh(_ state: inout State, _ connection: SQLiteConnection) throws -> Bool {
        let dataVersion = try connection.dataVersion()
        if state.cached != nil && dataVersion == state.loadedDataVersion { return false }
        var snapshot = BackendSnapshot()
        var maximum: Int64
        // Taking the cached snapshot out of `state` lets the dictionary be updated in place.
        if let cached = state.cached.take() {
            snapshot = cached
            let since = state.lastSequence
            maximum = since
            try connection.withStatement(SQLiteSchema.selectRemoved) { statement in
                try statement.bind(.integer(since))
                while try statement.step() {
                    let key = statement.text(at: 0)
                    // The removal of a row that reads did not show leaves the shown one alone.
                    if snapshot.values.shownKey(for: key).utf8.elementsEqual(key.utf8) { snapshot.values[key] = nil }
                    state.hiddenSpellings.removeAll { $0.utf8.elementsEqual(key.utf8) }
                    if case .integer(let sequence) = statement.value(at: 1) { maximum = max(maximum, sequence) }
                }
            }
            maximum = max(
                maximum,
                try readRows(
                    SQLiteSchema.selectChanged, since: since, into: &snapshot.values, &state.pendingEvents,
                    &state.hiddenSpellings, connection))
            if maximum == since, try maximumSequence(connection) < since {
                snapshot = BackendSnapshot()
                maximum = try readEverything(into: &snapshot, &state.pendingEvents, &state.hiddenSpellings, connection)
            }
        } else {
            maximum = try readEverything(into: &snapshot, &state.pendingEvents, &state.hiddenSpellings, connection)
        }
        snapshot.schemaVersion = Int(try connection.integerPragma("user_version"))
        state.cached = snapshot
        state.loadedDataVersion = dataVersion
        state.lastSequence = maximum
        return true
    }

    /// Reads every row into the empty `snapshot`; returns the largest sequence in either table.
    private func readEverything(
        into snapshot: inout BackendSnapshot, _ events: inout [StoreEvent], _ hidden: inout [String],
        _ connection: SQLiteConnection
    ) throws -> Int64 {
        hidden = []
        // Sized once up front: growing a 10k-key dictionary row by row rehashes it many times.
        if case .integer(let rows) = try connection.scalar(SQLiteSchema.countRows) {
            snapshot.values.reserveCapacity(Int(rows))
        }
        let rows = try readRows(SQLiteSchema.selectAll, since: nil, into: &snapshot.values, &events, &hidden, connection)
        guard case .integer(let removed) = try connection.scalar(SQLiteSchema.maximumRemovedSequence) else { return rows }
        return max(rows, removed)
    }

    /// Reads `sql`'s rows into `values`; returns the largest `change_seq` among them (0 when none).
    /// Rows that reads do not show (another spelling of a shown key) are recorded in `hidden`.
    private func readRows(
        _ sql: String, since sequence: Int64?, into values: inout [String: StoredValue], _ events: inout [StoreEvent],
        _ hidden: inout [String], _ connection: SQLiteConnection
    ) throws -> Int64 {
        var maximum: Int64 = 0
        try connection.withStatement(sql) { statement in
            if let sequence { try statement.bind(.integer(sequence)) }
            while try statement.step() {
                let key = statement.text(at: 0)
                let column = statement.value(at: 2)
                let kind = statement.withBytes(at: 1) { SQLiteValueColumns.Kind($0) }
                maximum = max(maximum, statement.integer(at: 3))
                if let value = SQLiteValueColumns.value(kind: kind, column: column) {
                    // Swift compares keys canonically, SQLite by bytes: two rows may hold one Swift key.
                    // Reads see the first row (in key order) and the other row stays as it is.
                    if sequence == nil {
                        if let first = values.updateValue(value, forKey: key) {
                            values[key] = first
                            events.append(equivalentKeys(shown: values.shownKey(for: key), hidden: key))
                            hidden.append(key)
                        }
                    } else if values.shownKey(for: key).utf8.elementsEqual(key.utf8) {
                        values[key] = value
                    } else if !hidden.contains(where: { $0.utf8.elementsEqual(key.utf8) }) {
                        hidden.append(key)
                    }
                } else {
                    // Left in the file untouched; the key reads as absent until the app writes it.
                    values[key] = nil
                    events.append(.decodingFailed(key: key, expected: statement.text(at: 1), found: Self.summary(of: column)))
                }
            }
        }
        return maximum
    }

    /// What an unreadable row's value column holds, for its event: valid JSON nested too deep is
    /// told apart from damage.
    private static func summary(of column: SQLiteColumnValue) -> String {
        if case .text(let text) = column, StoredValueJSON.nestsTooDeep(text) { return StoredValueJSON.tooDeepFound }
        return column.summary
    }

    private func equivalentKeys(shown: String, hidden: String) -> StoreEvent {
        .equivalentKeys(path: path, shown: shown, hidden: hidden)
    }

    /// Writes `changes` in the caller's transaction; returns the new largest change sequence.
    ///
    /// The largest sequence in the file comes from `state` when it knows it (a snapshot that
    /// `refresh` just confirmed current inside this write transaction); without it, a scan finds it.
    ///
    /// A key with several spellings in the file (see ``StoreEvent/equivalentKeys(path:shown:hidden:)``)
    /// is written under the spelling reads show, so that every reader sees the write; a removal
    /// removes every spelling, so that no hidden one shows up in its place.
    func write(_ changes: BackendChanges, _ state: inout State, _ connection: SQLiteConnection) throws -> Int64 {
        let previous = try state.knownMaximumSequence ?? maximumSequence(connection)
        guard !changes.isEmpty else { return previous }
        let sequence = previous + 1
        var largest = sequence
        let now = Date().timeIntervalSince1970
        for (key, value) in changes.values {
            let shown = state.cached?.values.shownKey(for: key) ?? key
            if let value {
                let (type, column) = try SQLiteValueColumns.columns(for: value, key: key)
                try connection.withStatement(SQLiteSchema.upsert) { statement in
                    try statement.bind(.text(shown), .text(type), column, .real(now), .integer(sequence))
                    try statement.run()
                }
            } else {
                largest = max(largest, try remove(key, sequence: sequence, connection))
                var others = state.hiddenSpellings.filter { $0 == key }  // `==` is canonical equivalence
                if !shown.utf8.elementsEqual(key.utf8) { others.append(shown) }
                for other in others where !other.utf8.elementsEqual(key.utf8) {
                    largest = max(largest, try remove(other, sequence: sequence, connection))
                }
                state.hiddenSpellings.removeAll { $0 == key }
            }
        }
        if let version = changes.schemaVersion {
            guard let storable = Int32(exactly: version) else {
                throw StoreError.unrepresentable(
                    key: "schema version", reason: "\(version) does not fit SQLite's 32-bit PRAGMA user_version")
            }
            try connection.execute("PRAGMA user_version = \(storable)")
        }
        return largest
    }

    /// Deletes `key` with its tombstone at `sequence`; returns the tombstone's final sequence.
    private func remove(_ key: String, sequence: Int64, _ connection: SQLiteConnection) throws -> Int64 {
        try connection.withStatement(SQLiteSchema.recordRemoval) { statement in
            try statement.bind(.text(key), .integer(sequence))
            try statement.run()
        }
        try connection.withStatement(SQLiteSchema.delete) { statement in
            try statement.bind(.text(key))
            try statement.run()
        }
        return try connection.withStatement(SQLiteSchema.removedSequence) { statement in
            try statement.bind(.text(key))
            guard try statement.step(), case .integer(let stored) = statement.value(at: 0) else { return sequence }
            return stored
        }
    }

    private func maximumSequence(_ connection: SQLiteConnection) throws -> Int64 {
        guard case .integer(let value) = try connection.scalar(SQLiteSchema.maximumSequence) else { return 0 }
        return value
    }

    /// Moves the file and its `-wal`/`-shm` companions to `<name>.corrupt-<timestamp>` (a free name,
    /// claimed exclusively, so two processes never overwrite each other's copy); returns the new
    /// path, or `nil` when another process moved the file aside first.
    private func quarantine() throws -> String? {
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let stamp = StoredValueText.text(of: now).filter { $0 != "-" && $0 != ":" }
        do {
            return try FileSystem.moveAside(path, companions: ["-wal", "-shm"], toNameBasedOn: "\(path).corrupt-\(stamp)")
        } catch StoreError.io(_, _, let code) where code == ENOENT {
            return nil
        }
    }
}

extension SQLiteBackend.State {
    /// The largest sequence in the file, valid right after `refresh` inside a write transaction:
    /// with a snapshot, `lastSequence` was either just reloaded or set by our own last commit,
    /// and the unchanged `data_version` says nobody committed since.
    var knownMaximumSequence: Int64? { cached != nil ? lastSequence : nil }

    /// Folds a committed batch into the cached snapshot; our own commits do not move `data_version`.
    mutating func recordCommitted(_ changes: BackendChanges, sequence: Int64) {
        // Moved out, so the batch changes the only reference instead of copying every value.
        guard var snapshot = cached.take() else { return }
        snapshot.apply(changes)
        cached = snapshot
        lastSequence = sequence
    }
}
