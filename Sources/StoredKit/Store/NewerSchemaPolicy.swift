/// What opening a store does when its data was written by a newer app (its schema version is
/// above the last migration this app knows).
///
/// ```swift
/// let store = try PreferenceStore(.plist(at: url), migrations: migrations, whenNewer: .openReadOnly)
/// store.isReadOnly  //=> true when the file came from a newer app
/// ```
public enum NewerSchemaPolicy: Sendable, Hashable {
    /// The open throws ``StoreError/newerSchemaVersion(found:supported:)`` (the default).
    case fail
    /// The store opens and serves the newer data, but refuses every write, so the newer app's
    /// file is never rewritten by this one. Refused writes are reported as
    /// ``StoreEvent/commitFailed(_:)`` with ``StoreError/readOnly(path:)``.
    case openReadOnly
}
