/// The rules every key follows on every backend, checked at `set` (and by every transaction,
/// migration and import) so that a key one backend cannot hold is refused by name at once,
/// rather than by the server at every later commit.
extension PreferenceStore {
    /// The longest key, in bytes of UTF-8: 1,024. Every backend holds it with room to spare
    /// (PostgreSQL's index on namespace and key takes at most 2,704 bytes a row).
    ///
    /// ```swift
    /// store.set(1, forKey: String(repeating: "k", count: 2_000))
    /// // not written; reported: Value for 'kkk…' was not stored: the key is 2000 bytes long; …
    /// ```
    public static let maximumKeyLength = 1_024

    /// Keys no store accepts: a plist file keeps StoredKit's own metadata (the schema version)
    /// under `StoredKit.metadata`, so a user key of that name could not be carried from one
    /// backend to another, nor exported to a plist that opens as a store.
    ///
    /// ```swift
    /// PreferenceStore.reservedKeys  //=> ["StoredKit.metadata"]
    /// ```
    public static let reservedKeys: Set<String> = ["StoredKit.metadata"]

    /// Throws ``StoreError/refused(key:reason:)`` for a key that breaks ``maximumKeyLength``, holds
    /// U+0000 or is one of ``reservedKeys``; what a tool that writes backends directly checks before it does.
    ///
    /// ```swift
    /// try PreferenceStore.checkKey("volume")              // fine
    /// try PreferenceStore.checkKey("StoredKit.metadata")  // throws: the key is reserved …
    /// ```
    public static func checkKey(_ key: String) throws(StoreError) {
        if let reason = refusalReason(forKey: key) { throw .refused(key: key, reason: reason) }
    }

    /// Why `key` is refused, or `nil` when it is fine: the length, U+0000, then the reserved names.
    static func refusalReason(forKey key: String) -> String? {
        let length = key.utf8.count
        if length > maximumKeyLength {
            return "the key is \(length) bytes long; keys are at most \(maximumKeyLength) bytes of UTF-8 on every backend"
        }
        if key.utf8.contains(0) {
            return "the key holds U+0000, which PostgreSQL text and XML cannot hold; keys never hold it on any backend"
        }
        if length == reservedKeyLength, reservedKeys.contains(key) {
            return "the key '\(key)' is reserved for StoredKit's metadata on every backend; choose another key"
        }
        return nil
    }

    /// The length of the one reserved key: most keys differ in length and are passed without a hash.
    private static let reservedKeyLength = "StoredKit.metadata".utf8.count
}
