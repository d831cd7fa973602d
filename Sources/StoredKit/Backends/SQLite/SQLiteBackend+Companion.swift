import Foundation

// Tables of a companion beside the backend's own, written in the same transactions: what the
// offline replica (``ReplicaFile``) keeps next to the values — each key's stamp and the outbox.
extension SQLiteBackend {
    /// Runs `decide` on the freshest data inside one `BEGIN IMMEDIATE` transaction (it may read
    /// the companion's tables through the connection), commits the changes it returns, and runs
    /// `record` with them to write the companion's rows in the same transaction. Returns what
    /// `decide` returned and whether another connection had committed since this instance last
    /// looked. A file replaced meanwhile gets the changes and `record` again (`decide` runs once,
    /// as ``withExclusiveAccess(_:)``'s body does). The connection is set for `durability`, and a
    /// batch that asks for `.immediate` is synced whatever it was set for.
    func withCompanionTransaction<R>(
        durability: Durability,
        decide: (BackendSnapshot, SQLiteConnection) throws -> (BackendChanges, R),
        record: (BackendChanges, SQLiteConnection) throws -> Void
    ) throws -> (result: R, changedElsewhere: Bool) {
        var outcome: Result<(R, Bool), any Error>?
        state.withLock { state in
            outcome = Result {
                var changedElsewhere = false
                var decided: (changes: BackendChanges, value: R)?
                for _ in 1...Self.replacementAttempts {
                    changedElsewhere = try closeIfReplaced(&state) || changedElsewhere
                    let connection = try open(&state)
                    try connection.setSynchronous(durability == .immediate ? "FULL" : "NORMAL")
                    let (changes, value, sequence) = try connection.transaction(.immediate) {
                        if state.cached != nil { changedElsewhere = try refresh(&state, connection) || changedElsewhere }
                        let (changes, value): (BackendChanges, R)
                        if let decided {
                            (changes, value) = decided
                        } else {
                            var snapshot = state.cached ?? BackendSnapshot()
                            snapshot.events = []
                            (changes, value) = try decide(snapshot, connection)
                            decided = (changes, value)
                        }
                        let sequence = try write(changes, &state, connection)
                        try record(changes, connection)
                        return (changes, value, sequence)
                    }
                    state.recordCommitted(changes, sequence: sequence)
                    // synchronous cannot change inside a transaction: a batch that asks for more than
                    // `durability` gets its log synced by hand, as withExclusiveAccess does.
                    if changes.durability == .immediate && connection.synchronous != "FULL" {
                        try connection.syncWriteAheadLog()
                    }
                    guard try closeIfReplaced(&state) else { return (value, changedElsewhere) }
                    changedElsewhere = true
                }
                throw StoreError.io(path: path, operation: "commit to (it was replaced during every attempt)", errno: EAGAIN)
            }
        }
        return try outcome!.get()  // trap-ok: withLock ran the closure synchronously, so outcome is set
    }

    /// Runs `body` with the connection in a read transaction (one snapshot of the file).
    func withCompanionReading<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        var outcome: Result<R, any Error>?
        state.withLock { state in
            outcome = Result {
                _ = try closeIfReplaced(&state)
                let connection = try open(&state)
                return try connection.transaction { try body(connection) }
            }
        }
        return try outcome!.get()  // trap-ok: withLock ran the closure synchronously, so outcome is set
    }
}
