import Foundation

/// Importers: bring data from a Foundation UserDefaults file or another store into the staged data.
///
/// An import never replaces a key the staged data already has, so running it twice (or after
/// the app already wrote the key) is harmless. Removing the source is registered with
/// ``MigrationContext/afterCommit(_:)``: it happens only once the migration's commit succeeded.
extension MigrationContext {
    /// Imports the values of a Foundation `UserDefaults` suite from its plist file (XML or binary),
    /// found where Foundation keeps it (see ``PlistBackend/fileURL(forSuite:environment:)``; a suite
    /// name that is an absolute path names the file `<suite>.plist`). A missing file imports
    /// nothing; a file that does not parse fails the migration. Returns the keys imported, sorted.
    ///
    /// With `removeSourceAfterCommit`, the imported keys (the whole file when `keys` is `nil`) are
    /// removed from the suite once the migration is committed.
    ///
    /// ```swift
    /// Migration(version: 1, "import UserDefaults") { m in
    ///     try m.importUserDefaults(suite: "com.example.app", removeSourceAfterCommit: true)
    /// }
    /// // in a migration: try m.importUserDefaults(suite: "com.example.app", keys: ["volume"])  //=> ["volume"]
    /// ```
    @discardableResult
    public func importUserDefaults(
        suite: String, keys: [String]? = nil, removeSourceAfterCommit: Bool = false
    ) throws -> [String] {
        let url = PlistBackend.fileURL(forSuite: suite)
        let source = PlistBackend(at: url, format: Self.plistFormat(of: url.path), corruption: .fail)
        let available = try source.load().values
        let imported = stage(available, keys: keys)
        if removeSourceAfterCommit, !available.isEmpty {
            afterCommit {
                if let keys {
                    try Self.remove(keys, from: source)
                } else {
                    try Self.removeFile(at: source.path)
                }
            }
        }
        return imported
    }

    /// Imports the values of another store (for example a plist store moving to SQLite). Reads
    /// the store's current data, its uncommitted writes included. Returns the keys imported, sorted.
    ///
    /// With `removeSourceKeysAfterCommit`, the keys that were offered (`keys`, or all) are removed
    /// from `store` and flushed once the migration is committed.
    ///
    /// ```swift
    /// let old = try PreferenceStore(.plist(suite: "com.example.app"))
    /// let store = try PreferenceStore(.sqlite(at: url), migrations: [
    ///     Migration(version: 1, "move to SQLite") { m in try m.importStore(old, removeSourceKeysAfterCommit: true) }
    /// ])
    /// store.keys  //=> ["volume"]
    /// ```
    @discardableResult
    public func importStore(
        _ store: PreferenceStore, keys: [String]? = nil, removeSourceKeysAfterCommit: Bool = false
    ) throws -> [String] {
        let available = store.dictionaryRepresentation()
        let imported = stage(available, keys: keys)
        if removeSourceKeysAfterCommit {
            let offered = keys ?? Array(available.keys)
            afterCommit {
                for key in offered { store.removeValue(forKey: key) }
                try store.flush()
            }
        }
        return imported
    }

    /// Imports the values of another backend, read directly (no store needed). It must not be the
    /// backend being migrated. Returns the keys imported, sorted.
    ///
    /// With `removeSourceKeysAfterCommit`, the keys that were offered (`keys`, or all) are removed
    /// from `backend` in one commit once the migration is committed.
    ///
    /// ```swift
    /// Migration(version: 1, "move to SQLite") { m in
    ///     try m.importStore(PlistBackend(at: oldFile), removeSourceKeysAfterCommit: true)
    /// }
    /// ```
    @discardableResult
    public func importStore(
        _ backend: any Backend, keys: [String]? = nil, removeSourceKeysAfterCommit: Bool = false
    ) throws -> [String] {
        let available = try backend.load().values
        let imported = stage(available, keys: keys)
        if removeSourceKeysAfterCommit {
            let offered = keys ?? Array(available.keys)
            afterCommit { try Self.remove(offered, from: backend) }
        }
        return imported
    }

    /// Stages the selected values whose keys are still free; returns those keys, sorted.
    private func stage(_ available: [String: StoredValue], keys: [String]?) -> [String] {
        var imported: [String] = []
        for key in keys ?? Array(available.keys) {
            guard let value = available[key], staging.values[key] == nil else { continue }
            staging.values[key] = value
            imported.append(key)
        }
        return imported.sorted()
    }

    /// Removes `keys` from a source; harmless when they are already gone.
    private static func remove(_ keys: [String], from backend: any Backend) throws {
        let removals = Dictionary(keys.map { ($0, StoredValue?.none) }, uniquingKeysWith: { first, _ in first })
        _ = try backend.commit(BackendChanges(values: removals, durability: .immediate))
    }

    /// Deletes an imported file; a file that is already gone is fine (the cleanup may run twice).
    private static func removeFile(at path: String) throws {
        try FileSystem.remove(path, operation: "remove the imported file")
    }

    /// Keeps a binary file binary when keys are removed from it.
    private static func plistFormat(of path: String) -> PlistFormat {
        PlistFormat(ofFileAt: path)
    }
}
