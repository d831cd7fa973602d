/// Something the store wants you to know about that did not make a call fail:
/// a value that did not decode, a file moved aside, a background write that failed.
///
/// ```swift
/// for await event in store.diagnostics {
///     print(event)  //=> Key 'volume' holds string, not Double; the default was used and the stored value kept.
/// }
/// ```
public enum StoreEvent: Sendable, CustomStringConvertible {
    /// A stored value did not decode as the type it was read as. It was left untouched.
    case decodingFailed(key: String, expected: String, found: String)
    /// A value could not be encoded, so it was not written.
    case encodingFailed(key: String, reason: String)
    /// A corrupt file was moved aside and the store opened empty.
    case quarantined(path: String, movedTo: String, reason: String)
    /// Writing to the backend failed; the changes stay in memory and the next flush retries.
    case commitFailed(StoreError)
    /// Reading other processes' changes failed.
    case reloadFailed(StoreError)
    /// The data holds two keys that differ only in their Unicode normalisation (`"caf\u{E9}"` and
    /// `"cafe\u{301}"`), which Swift treats as one key. Reads see `shown`, the first in the
    /// file's order; `hidden` is kept byte for byte, never dropped.
    case equivalentKeys(path: String, shown: String, hidden: String)
    /// A migration was committed, but cleaning up its source afterwards (deleting an imported
    /// file or keys) failed; the source is still there.
    case migrationCleanupFailed(version: Int, name: String, reason: String)
    /// The connection to a database server (`server`, its address without the password) was lost.
    /// Reads keep serving the last snapshot; deferred writes stay pending until it is back.
    case connectionLost(server: String, reason: String)
    /// The connection to `server` is back; the store caught up with what others changed meanwhile
    /// and retries what is pending.
    case connectionRestored(server: String)
    /// A message the database server sent (a PostgreSQL notice or warning), passed on rather than
    /// printed to standard error.
    case serverNotice(server: String, message: String)
    /// A `set`, `removeValue` or `reset` of `key` was refused because an administrator forced it
    /// (`source`); nothing changed.
    case forcedWriteRefused(key: String, source: ValueSource)
    /// `key` was written to the user's values, but a higher layer (`source`, such as a launch argument)
    /// still decides what it reads. Reported once per key.
    case writeOverridden(key: String, source: ValueSource)
    /// An administrator's forced layer now holds `key` (`source`): a UI should disable its control.
    case becameForced(key: String, source: ValueSource)
    /// `key` is no longer forced: its control can be enabled again.
    case becameUnforced(key: String)
    /// A layer's value of `key` (from `source`) did not convert to the type it was read as; the read
    /// went on to the next layer.
    case layerValueUnreadable(key: String, source: ValueSource, reason: String)
    /// A layer's file could not be read or parsed. At open the layer reads as empty; later its last
    /// good contents stay (`keptLastGood`) until the file is fixed.
    case layerFileUnreadable(path: String, reason: String, keptLastGood: Bool)
    /// Two keys read from an environment layer share one `variable` (`sidebar.order` and `sidebar_order`);
    /// both read it.
    case environmentCollision(variable: String, keys: [String])
    /// A forced file can be written by the user running the app (it is theirs, or writable by anyone),
    /// so its values are the user's, not an administrator's.
    case forcedFileWritable(path: String)
    /// A write of `key` made here lost to one made later elsewhere (a higher hybrid-logical-clock
    /// stamp, see ``HybridTimestamp``), which the key now holds: `winner` (nil: the later write
    /// removed it). Shared and replicated stores report it when a write arrives after the newer one.
    case lostToLaterWrite(key: String, winner: StoredValue?)
    /// The server recorded the write of `key` with a stamp earlier than this machine's clock gave
    /// it, because that clock is more than the allowed skew (`allowedSkew`) ahead of the server's:
    /// fix the machine's clock, or its writes lose to changes made after them elsewhere.
    case stampClamped(key: String, server: String, allowedSkew: Duration)
    /// A write of `key` that a replica accepted offline was refused by `server` when it arrived
    /// (a read-only role, an access rule, a revoked privilege, a value the server's limits
    /// refuse: `reason`); the key holds the server's value again, and the write is not retried.
    case refusedByServer(key: String, server: String, reason: String)

    /// A one-line explanation naming the key or file.
    ///
    /// ```swift
    /// StoreEvent.encodingFailed(key: "a", reason: "nil inside an array").description
    /// //=> Value for 'a' was not stored: nil inside an array.
    /// ```
    public var description: String {
        switch self {
        case .decodingFailed(let key, let expected, let found):
            "Key '\(key)' holds \(found), not \(expected); the default was used and the stored value kept."
        case .encodingFailed(let key, let reason):
            "Value for '\(key)' was not stored: \(reason)."
        case .equivalentKeys(let path, let shown, let hidden):
            "'\(path)' holds keys \(shown.scalarSpelling) and \(hidden.scalarSpelling), which differ only in their "
                + "Unicode form; reads see the first, the second is kept unchanged. Rename one with the tool that wrote it."
        case .quarantined(let path, let movedTo, let reason):
            "'\(path)' was corrupt (\(reason)); moved to '\(movedTo)', store opened empty."
        case .commitFailed(.readOnly(let path)):
            "Write refused: '\(path)' is open read-only (its data is newer than this app); nothing was written."
        case .commitFailed(.writeNotPermitted(let location, let key, let privilege)) where StoreError.namesItsRemedy(privilege):
            "Write of '\(key ?? "schema version")' refused: the role of '\(location)' lacks \(privilege); nothing was written."
        case .commitFailed(.writeNotPermitted(let location, let key, let privilege)):
            "Write of '\(key ?? "schema version")' refused: '\(location)' is open with a role that may only read "
                + "(it lacks \(privilege)); nothing was written."
        case .commitFailed(let error):
            "Write failed, will retry: \(error)"
        case .reloadFailed(let error):
            "Reading external changes failed: \(error)"
        case .migrationCleanupFailed(let version, let name, let reason):
            "Migration \(version) '\(name)' was committed, but removing its source failed: \(reason). Remove the source by hand."
        case .connectionLost(let server, let reason):
            "Lost the connection to \(server) (\(reason)); serving the last values, writes wait until it is back."
        case .connectionRestored(let server):
            "The connection to \(server) is back; caught up with changes made meanwhile."
        case .serverNotice(let server, let message):
            "\(server) says: \(message)"
        case .forcedWriteRefused(let key, let source):
            "Write of '\(key)' refused: it is \(source); nothing changed."
        case .writeOverridden(let key, let source):
            "Key '\(key)' was stored, but \(source) still decides what it reads."
        case .becameForced(let key, let source):
            "Key '\(key)' is now \(source); writes of it are refused."
        case .becameUnforced(let key):
            "Key '\(key)' is no longer forced; it can be changed again."
        case .layerValueUnreadable(let key, let source, let reason):
            "Key '\(key)' from \(source) was skipped: \(reason); the next layer was read."
        case .layerFileUnreadable(let path, let reason, let keptLastGood):
            "Layer file '\(path)' could not be read (\(reason)); "
                + (keptLastGood ? "its last good contents stay until it is fixed." : "it reads as empty until it is fixed.")
        case .environmentCollision(let variable, let keys):
            "Keys \(keys.map { "'\($0)'" }.joined(separator: " and ")) both read the environment variable \(variable); "
                + "rename one of the keys."
        case .forcedFileWritable(let path):
            "Forced file '\(path)' can be written by this user, so its values are not an administrator's; "
                + "make it owned by root and not writable by others."
        case .lostToLaterWrite(let key, let winner):
            "The write of '\(key)' made here lost to a later one made elsewhere; it now "
                + (winner.map { "holds \($0)." } ?? "is removed.")
        case .refusedByServer(let key, let server, let reason):
            "\(server) refused the write of '\(key)' made offline (\(reason)); '\(key)' holds the server's value again."
        case .stampClamped(let key, let server, let allowedSkew):
            "This machine's clock is more than \(allowedSkew) ahead of \(server)'s: the write of '\(key)' "
                + "was recorded at the server's time plus that skew; fix this machine's clock."
        }
    }
}
