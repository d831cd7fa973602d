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
        }
    }
}
