import Foundation

// The database file deleted (`rm prefs.sqlite`) or replaced by a rename (`mv backup.sqlite
// prefs.sqlite`) while open. SQLite keeps writing to the file it has open, which no longer has the
// store's name, and its write-ahead log, which does: a fresh open would apply that log to the new
// file. So the file's identity is compared at each commit and load: once it changed, the old file's
// log is emptied into it and the connection closed, and the file now at the path is opened, or
// created. Every function here runs with `state` locked.
extension SQLiteBackend {
    /// How often a commit follows the file to a new one before giving up: only a file replaced
    /// again during every attempt exhausts it.
    static let replacementAttempts = 5

    /// Closes the connection when the file at the path is no longer the one it has open; returns
    /// whether it did. The next ``open(_:)`` then reads the file that has the store's name now.
    func closeIfReplaced(_ state: inout State) throws -> Bool {
        guard state.connection != nil else { return false }
        let atPath = try FileIdentity.of(path: path)
        if atPath != nil, FileIdentity.sameFile(atPath, state.openedFile) { return false }
        // Best effort: a process still reading the old file can keep the log from being emptied.
        state.connection?.emptyWriteAheadLog()
        state.connection = nil
        state.cached = nil
        state.openedFile = nil
        return true
    }

    /// Commits `changes` into the file that has the store's name when the commit ends: a file
    /// replaced meanwhile gets the batch again. Returns whether the data changed under this
    /// instance (another connection's commit, or a new file), so the caller returns a snapshot.
    func commitToFileAtPath(_ changes: BackendChanges, _ state: inout State) throws -> Bool {
        var changedElsewhere = false
        for _ in 1...Self.replacementAttempts {
            changedElsewhere = try closeIfReplaced(&state) || changedElsewhere
            let connection = try open(&state)
            try connection.setSynchronous(changes.durability == .immediate ? "FULL" : "NORMAL")
            let sequence = try connection.transaction(.immediate) {
                // Without a snapshot there is nothing to merge into: the next load reads everything.
                if state.cached != nil { changedElsewhere = try refresh(&state, connection) || changedElsewhere }
                return try write(changes, &state, connection)
            }
            state.recordCommitted(changes, sequence: sequence)
            guard try closeIfReplaced(&state) else { return changedElsewhere }
            changedElsewhere = true
        }
        throw StoreError.io(path: path, operation: "commit to (it was replaced during every attempt)", errno: EAGAIN)
    }
}
