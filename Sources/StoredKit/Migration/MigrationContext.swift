/// The staged data a ``Migration`` reads and changes. Nothing is written until every
/// pending migration has succeeded; then all of it is committed at once.
///
/// ```swift
/// Migration(version: 1, "split name") { m in
///     if let full = m.value(forKey: "name", as: String.self) {
///         m.set(String(full.split(separator: " ").first ?? ""), forKey: "firstName")
///         m.removeValue(forKey: "name")
///     }
/// }
/// ```
public struct MigrationContext: PreferenceAccess {
    /// Shared by copies of the context, so a nonmutating `set` still stages the write.
    final class Staging {
        var values: [String: StoredValue]
        var failure: StoreError?
        var cleanups: [() throws -> Void] = []
        /// The key each renamed key's value came from (before every rename of this run).
        var origins: [String: String] = [:]
        init(values: [String: StoredValue]) { self.values = values }
    }

    let staging: Staging

    init(values: [String: StoredValue]) {
        staging = Staging(values: values)
    }

    /// Every key in the staged data, sorted.
    ///
    /// ```swift
    /// m.keys  //=> ["sidebar", "volume"]
    /// ```
    public var keys: [String] { staging.values.keys.sorted() }

    /// The staged raw value of `key`.
    ///
    /// ```swift
    /// m.storedValue(forKey: "volume")  //=> .double(0.5)
    /// ```
    public func storedValue(forKey key: String) -> StoredValue? { staging.values[key] }

    /// Stages a raw value; `nil` removes the key.
    ///
    /// ```swift
    /// m.setStoredValue(.int(1), forKey: "count")
    /// ```
    public func setStoredValue(_ value: StoredValue?, forKey key: String) { staging.values[key] = value }

    /// Moves a value to a new key. Fails if `newKey` exists, unless `overwrite` is true;
    /// does nothing if `oldKey` has no value (so running twice is harmless).
    ///
    /// ```swift
    /// try m.renameKey("tabs", to: "sidebar")
    /// ```
    public func renameKey(_ oldKey: String, to newKey: String, overwrite: Bool = false) throws {
        guard oldKey != newKey, let value = staging.values[oldKey] else { return }
        if !overwrite, staging.values[newKey] != nil { throw StoreError.keyExists(key: newKey) }
        staging.values[newKey] = value
        staging.values[oldKey] = nil
        staging.origins[newKey] = staging.origins[oldKey] ?? oldKey
    }

    /// Rewrites a Codable value whose shape changed. Does nothing if the key has no value; throws
    /// a type mismatch if it does not decode as `Old` (the migration then fails, nothing changes).
    ///
    /// ```swift
    /// try m.transform("sidebar", from: SidebarV1.self, to: SidebarV2.self) { SidebarV2(upgrading: $0) }
    /// ```
    public func transform<Old: Codable, New: Codable>(
        _ key: String, from old: Old.Type, to new: New.Type, _ body: (Old) throws -> New
    ) throws {
        guard let stored = staging.values[key] else { return }
        let oldValue: Old
        do {
            oldValue = try StoredValueDecoder().decode(Old.self, from: stored)
        } catch {
            throw StoreError.typeMismatch(key: key, expected: String(describing: Old.self), found: stored.typeName)
        }
        staging.values[key] = try StoredValueEncoder().encode(try body(oldValue))
    }

    /// Removes every key for which `predicate` is true.
    ///
    /// ```swift
    /// m.removeAll { key, _ in key.hasPrefix("legacy.") }
    /// ```
    public func removeAll(where predicate: (String, StoredValue) throws -> Bool) rethrows {
        for (key, value) in staging.values where try predicate(key, value) {
            staging.values[key] = nil
        }
    }

    /// Registers work (such as deleting an imported file) that runs only after the migration's
    /// commit succeeded. It must be safe to run again if the process dies before it finishes.
    ///
    /// ```swift
    /// m.afterCommit { try FileManager.default.removeItem(at: oldFile) }
    /// ```
    public func afterCommit(_ cleanup: @escaping () throws -> Void) {
        staging.cleanups.append(cleanup)
    }
}

extension MigrationContext: AccessFailureReporting {
    /// Makes the migration fail: a value that cannot be encoded must not be silently dropped.
    func encodingFailed(forKey key: String, error: any Error) {
        if staging.failure == nil { staging.failure = .unrepresentable(key: key, reason: "\(error)") }
    }

    /// Ignored: `value(forKey:as:)` returns `nil` and the migration decides what to do.
    func decodingFailed(forKey key: String, expected: String, found: StoredValue) {}
}
