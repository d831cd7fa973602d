import Foundation

/// Everything that can go wrong in StoredKit, each case naming the file or key involved.
///
/// Errors are thrown by the calls that can fail (`PreferenceStore.init`, `flush()`,
/// `update`, `transaction`, the encoder and decoder) and are also reported as
/// ``StoreEvent``s when they happen in the background.
///
/// ```swift
/// do { try store.flush() } catch let error as StoreError {
///     print(error)  //=> Could not write '/home/me/.config/app.plist': No space left on device (errno 28). Free some space; the previous file is intact.
/// }
/// ```
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// A stored value could not be read as the requested type.
    case typeMismatch(key: String, expected: String, found: String)
    /// A value cannot be represented as a ``StoredValue`` (for example `nil` inside an array).
    case unrepresentable(key: String, reason: String)
    /// The backend cannot hold this value under `key` (a reserved key, a value its format has no
    /// form for, one nested deeper than ``StoredValue/maximumDepth``); it was not written.
    case refused(key: String, reason: String)
    /// A store file could not be parsed. When the policy is quarantine, `quarantinedAt` is where it was moved.
    case corruptFile(path: String, reason: String, quarantinedAt: String?)
    /// A store file is intact and well-formed, but holds something StoredKit cannot read (a UID,
    /// an integer beyond 64 bits, an unsupported character encoding). It is never moved aside or
    /// rewritten; `advice` says what the user can do.
    case unsupportedFile(path: String, reason: String, advice: String)
    /// A system call on a file failed.
    case io(path: String, operation: String, errno: Int32)
    /// SQLite reported an error.
    case sqlite(path: String, code: Int32, message: String)
    /// A PostgreSQL server reported an error or could not be reached. `server` names it without
    /// the password; `code` is the SQLSTATE (`08001` when no connection could be made).
    case postgres(server: String, code: String, message: String)
    /// The runtime SQLite library is older than StoredKit needs.
    case unsupportedSQLite(found: String, required: String)
    /// A migration threw; nothing it did was committed.
    case migrationFailed(version: Int, name: String, underlying: any Error)
    /// The stored data was written by a newer version of the app.
    case newerSchemaVersion(found: Int, supported: Int)
    /// The migration list is not usable (duplicate or unordered versions): a programmer error.
    case invalidMigrations(reason: String)
    /// A rename or import would overwrite an existing key.
    case keyExists(key: String)
    /// The store was opened read-only and a write was attempted.
    case readOnly(path: String)
    /// The backend may only read (its role lacks `privilege`, as ``Backend/missingWritePrivilege``
    /// found at open, or the server's "permission denied" at a commit after a privilege was
    /// revoked), so the write of `key` was refused and nothing was written, nor kept pending;
    /// `key` is `nil` for the schema version a pending migration would write.
    ///
    /// ```swift
    /// try reporting.update(.volume) { $0 = 1 }
    /// // throws StoreError.writeNotPermitted(location: "postgresql://reporting@db/prefs namespace 'user:42'",
    /// //     key: "volume", privilege: "INSERT on storedkit.namespaces, ...")
    /// ```
    case writeNotPermitted(location: String, key: String?, privilege: String)
    /// A transaction or `update` wrote `key`, which an administrator forced (`source`); nothing
    /// was written. Read ``PreferenceStore/isForced(forKey:)`` first and leave the key alone.
    ///
    /// ```swift
    /// try store.update(.volume) { $0 = 0.9 }  // throws StoreError.forced(key: "volume", source: .forced(location: "/etc/xdg/app/forced.plist"))
    /// ```
    case forced(key: String, source: ValueSource)
    /// Something other than a regular file (a symbolic link, a FIFO, a directory) is where
    /// StoredKit keeps a file of its own, such as the lock file `<store>.lock`. It is never
    /// followed or opened; removing it lets StoredKit create the file again.
    ///
    /// ```swift
    /// // $ ln -s /elsewhere/x prefs.plist.lock
    /// try store.flush()  // throws StoreError.notRegularFile(path: ".../prefs.plist.lock", found: "a symbolic link")
    /// ```
    case notRegularFile(path: String, found: String)
    /// An SQLite file holds StoredKit's tables but lost the header that says so (its application
    /// ID and `user_version`, the schema version), as a restore from `sqlite3 .dump` does. It is
    /// left unchanged: the schema version cannot be guessed.
    case restoredWithoutHeader(path: String)
    /// The SQLite file belongs to another program: it has another application ID, or tables
    /// while it has none. It was left exactly as it was.
    ///
    /// ```swift
    /// try PreferenceStore(.sqlite(at: invoicesDatabase))
    /// // throws StoreError.notStoredKitDatabase(path: ".../invoices.db", reason: "application_id 0, other tables present")
    /// ```
    case notStoredKitDatabase(path: String, reason: String)
    /// SQLite could not switch the file to its write-ahead log, which StoredKit needs to share
    /// the file between processes safely; `mode` is the journal mode the file kept.
    ///
    /// ```swift
    /// try PreferenceStore(.sqlite(at: fileInReadOnlyDirectory))
    /// // throws StoreError.journalModeUnavailable(path: ".../prefs.sqlite", mode: "delete")
    /// ```
    case journalModeUnavailable(path: String, mode: String)
    /// `operation` was called inside a transaction body on the store at `path`, where it cannot
    /// work: ``PreferenceStore/flush()`` cannot commit what the transaction commits only when its
    /// body returns. Call it after ``PreferenceStore/transaction(_:)`` returns.
    ///
    /// ```swift
    /// try store.transaction { tx in
    ///     tx.set(1, forKey: "a")
    ///     try store.flush()  // throws StoreError.insideTransaction(path: ".../prefs.sqlite", operation: "flush()")
    /// }
    /// ```
    case insideTransaction(path: String, operation: String)
    /// A backend failed with an error of its own type (a third-party backend's, say);
    /// `underlying` is that error, unchanged, so callers can still match on it.
    ///
    /// ```swift
    /// do { try store.flush() } catch StoreError.backendFailed(_, _, let underlying as MyBackendError) {
    ///     print(underlying)  //=> MyBackendError.offline
    /// }
    /// ```
    case backendFailed(location: String, operation: String, underlying: any Error)
    /// ``PreferenceStore/synchronize(timeout:)`` gave up: `pendingWrites` local writes had not
    /// reached the server at `location`, or the replica had not caught up with it, and `reason`
    /// says why (the server unreachable, the time up). Nothing is lost: the writes stay queued in
    /// the replica and are sent when the server is back.
    case notSynchronized(location: String, pendingWrites: Int, reason: String)

    /// Any error as a `StoreError`: itself when it is one, else ``backendFailed(location:operation:underlying:)``
    /// around it, so a third-party backend's own error type survives.
    init(_ error: any Error, path: String, operation: String) {
        self = error as? StoreError ?? .backendFailed(location: path, operation: operation, underlying: error)
    }

    /// Whether the error means a store file is damaged or is not a store at all: a
    /// ``corruptFile(path:reason:quarantinedAt:)``, or SQLite's "database disk image is
    /// malformed" and "file is not a database" (with or without an extended code).
    ///
    /// ```swift
    /// StoreError.corruptFile(path: "/tmp/p.plist", reason: "truncated", quarantinedAt: nil).isCorruption  //=> true
    /// StoreError.io(path: "/tmp/p.plist", operation: "write", errno: ENOSPC).isCorruption  //=> false
    /// ```
    public var isCorruption: Bool {
        switch self {
        case .corruptFile: true
        case .sqlite(_, let code, _): SQLiteResultCode(code).isCorruption
        default: false
        }
    }

    /// A one-line explanation: what happened, to which file or key, and what to do.
    ///
    /// ```swift
    /// StoreError.keyExists(key: "sidebar").description
    /// //=> Key 'sidebar' already exists. Remove it first or pass overwrite: true.
    /// ```
    public var description: String {
        switch self {
        case .typeMismatch(let key, let expected, let found):
            "Key '\(key)' holds \(found), not \(expected). Write the key with the new type or remove it."
        case .unrepresentable(let key, let reason):
            "Value for '\(key)' cannot be stored: \(reason)."
        case .refused(let key, let reason):
            "The value for '\(key)' was refused: \(reason). It was not written; the key keeps its previous value."
        case .corruptFile(let path, let reason, let quarantinedAt):
            if let quarantinedAt {
                "'\(path)' is corrupt (\(reason)); it was moved to '\(quarantinedAt)' and the store opened empty."
            } else {
                "'\(path)' is corrupt (\(reason)). Move it aside or restore a backup, then open again."
            }
        case .unsupportedFile(let path, let reason, let advice):
            "'\(path)' is a valid file but holds \(reason), which StoredKit cannot read. The file is intact and was not changed. \(advice)"
        case .io(let path, let operation, let errno):
            "Could not \(operation) '\(path)': \(String(cString: strerror(errno))) (errno \(errno)). \(Self.advice(errno))"
        case .sqlite(let path, let code, let message):
            "SQLite error \(code) on '\(path)': \(message)."
        case .postgres(let server, let code, let message):
            "PostgreSQL error \(code) on '\(server)': \(message). \(Self.postgresAdvice(code, message))"
        case .unsupportedSQLite(let found, let required):
            "The system SQLite is \(found); StoredKit needs \(required) or newer. Upgrade libsqlite3."
        case .migrationFailed(let version, let name, let underlying):
            "Migration \(version) '\(name)' failed: \(underlying). Nothing was changed; it runs again at the next open."
        case .newerSchemaVersion(let found, let supported):
            "The store has schema version \(found) but this app knows only up to \(supported). It was written by a newer version; open it read-only or upgrade the app."
        case .invalidMigrations(let reason):
            "Invalid migration list: \(reason)."
        case .keyExists(let key):
            "Key '\(key)' already exists. Remove it first or pass overwrite: true."
        case .readOnly(let path):
            "'\(path)' is open read-only; nothing was written."
        case .writeNotPermitted(let location, let key?, let privilege) where Self.namesItsRemedy(privilege):
            // An access rule, which says how to get it (not table privileges); the role may not even read.
            "Cannot write '\(key)' to '\(location)': this role lacks \(privilege); nothing was written."
        case .writeNotPermitted(let location, let key?, let privilege):
            "Cannot write '\(key)' to '\(location)': this role may only read (it lacks \(privilege)); nothing was written. "
                + "Write with a role granted these privileges (`stored postgres-setup URL --role ROLE` prints the grants)."
        case .writeNotPermitted(let location, nil, let privilege):
            "Cannot write the schema version of '\(location)': this role may only read (it lacks \(privilege)). "
                + "Open the store once with the writing role, which runs the pending migrations; then this role can read it."
        case .forced(let key, let source):
            "Key '\(key)' is \(source); the write was refused and nothing was written. Leave forced keys alone "
                + "(check isForced(forKey:)), or ask the administrator to change the forced value."
        case .notRegularFile(let path, let found):
            "'\(path)' is \(found), not a regular file; StoredKit neither follows nor opens it, and wrote nothing. "
                + "Remove '\(path)' (StoredKit creates it again) and retry."
        case .restoredWithoutHeader(let path):
            "'\(path)' holds StoredKit's tables without StoredKit's header (application_id and user_version), "
                + "as a restore from 'sqlite3 .dump' leaves it; its schema version is unknown, so it was left unchanged. "
                + "Restore with \"sqlite3 prefs.sqlite '.backup copy.sqlite'\" instead, or, knowing the schema version N "
                + "it had, run \"sqlite3 copy.sqlite 'PRAGMA application_id = 1400130353; PRAGMA user_version = N'\"."
        case .notStoredKitDatabase(let path, let reason):
            "'\(path)' is not a StoredKit database (\(reason)); it was left unchanged. Choose another file."
        case .journalModeUnavailable(let path, let mode):
            "Could not switch '\(path)' to WAL journal mode (it kept \(mode)); the directory must allow creating "
                + "'\(SystemCall.fileName(of: path))-wal' and '\(SystemCall.fileName(of: path))-shm'."
        case .insideTransaction(let path, let operation):
            "\(operation) was called inside a transaction body on '\(path)', where it cannot work: the transaction "
                + "commits when its body returns. Call \(operation) after transaction(_:) returns; nothing was changed."
        case .backendFailed(let location, let operation, let underlying):
            "Could not \(operation) '\(location)': \(underlying). The backend's own error is above; "
                + "fix what it names and retry (writes that were not committed stay pending for the next flush)."
        case .notSynchronized(let location, let pendingWrites, let reason):
            "Could not synchronize with \(location): \(reason.hasSuffix(".") ? String(reason.dropLast()) : reason). "
                + "\(pendingWrites) local write"
                + (pendingWrites == 1 ? " waits" : "s wait")
                + " in the replica and will be sent when the server is back; nothing was lost."
        }
    }

    /// Whether `text` is StoredKit's own explanation naming the `stored` command to run (`stored access
    /// … grant`, `stored postgres-setup`): then no generic remedy is added, and a lost access rule is
    /// not called a table privilege.
    static func namesItsRemedy(_ text: String) -> Bool { text.contains("`stored ") }

    /// The remedy for an SQLSTATE, made precise by the server's message where one code has
    /// several causes (a statement cancelled by its timeout or by another session).
    private static func postgresAdvice(_ code: String, _ message: String) -> String {
        // The code's generic remedy would contradict the one named ("GRANT …", "dropped").
        if namesItsRemedy(message) { return "Nothing was changed." }
        switch code {
        case "42P01" where message.contains("storedkit"):
            return "StoredKit's table was dropped after the store opened it; the next write or open creates it again, "
                + "empty. Restore its values from a backup ('stored import') if they are needed."
        case "42501": return "Grant the user the privileges it lacks (GRANT … ON … TO the user), or connect as another user."
        case "57014" where message.contains("statement timeout"):
            return "The statement ran longer than the server's statement_timeout (set in the URL's options, or for the "
                + "role or database); raise it (ALTER ROLE name SET statement_timeout = '30s') or remove it. Nothing was written."
        case "57014": return "Another session cancelled the statement (pg_cancel_backend); nothing was written. Try again."
        case "55P03": return "Another session held the lock longer than lock_timeout; try again when it has finished."
        case "40001", "40P01": return "The transaction conflicted with another one and was rolled back; try again."
        case "57P01", "57P02", "57P03": return "The server is shutting down or starting up; try again when it is back."
        case "53300" where message.contains("for role"):
            return "The role's CONNECTION LIMIT is reached: close its idle connections or raise the limit "
                + "(ALTER ROLE name CONNECTION LIMIT n)."
        case "53300" where message.contains("for database"):
            return "The database's CONNECTION LIMIT is reached: close idle connections to it or raise the limit "
                + "(ALTER DATABASE name CONNECTION LIMIT n)."
        case "53300" where message.contains("pooled connections"):
            return
                "This process's own connections were all in use; allow the store a longer timeout or do less in each transaction."
        case "53300":
            return "The server's max_connections is reached: close idle connections or raise max_connections."
        case "53100": return "The server's disk is full; free space on the server. Nothing was written."
        case "28000":
            return "The server does not admit this user to this database (pg_hba.conf, a role without LOGIN, or no such role); "
                + "ask its administrator."
        default: break
        }
        return switch code.prefix(2) {
        case "08": "Check that the server is running and that the URL's host, port and database are right."
        case "28": "Check the user name and the password (in the URL, PGPASSWORD or ~/.pgpass)."
        case "3D": "Create the database or name another one in the URL."
        case "42": "Check that the user may create and use tables in this database."
        case "55", "57": "The server is busy or the lock is held elsewhere; try again."
        default: "Nothing was written."
        }
    }

    private static func advice(_ code: Int32) -> String {
        switch code {
        case ENOSPC, EFBIG, EDQUOT: "Free some space; the previous file is intact."
        case EACCES, EPERM, EROFS: "Check the permissions of the file and its directory; the previous file is intact."
        case EISDIR: "The path is a directory; choose a file path."
        case ENOENT: "Check that the path exists."
        default: "The previous file is intact."
        }
    }
}
