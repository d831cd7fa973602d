/// The view of a store inside ``PreferenceStore/transaction(_:)``: reads see the freshest data
/// plus this transaction's own writes; writes are committed together when the body returns.
///
/// ```swift
/// try store.transaction { tx in
///     let count = tx.value(forKey: "count", as: Int.self) ?? 0
///     tx.set(count + 1, forKey: "count")
///     tx[.lastOpened] = Date()
/// }
/// ```
public final class Transaction: PreferenceAccess {
    private let base: [String: StoredValue]
    private unowned let store: PreferenceStore
    /// The writes made so far; `nil` marks a removal.
    private(set) var staged: [String: StoredValue?] = [:]
    /// The first value that could not be encoded: the whole transaction then fails.
    private(set) var failure: StoreError?

    /// The store's other layers when the transaction began (`nil` without layers).
    private let layers: LayerTable?

    init(base: [String: StoredValue], store: PreferenceStore, layers: LayerTable? = nil) {
        self.base = base
        self.store = store
        self.layers = layers
    }

    /// Every key with a value, this transaction's writes included, sorted.
    ///
    /// ```swift
    /// tx.keys  //=> ["a", "volume"]
    /// ```
    public var keys: [String] {
        var keys = Set(base.keys)
        for (key, value) in staged {
            if value == nil { keys.remove(key) } else { keys.insert(key) }
        }
        return keys.union(layers?.keys ?? []).sorted()
    }

    /// The value as this transaction sees it.
    ///
    /// ```swift
    /// tx.storedValue(forKey: "a")  //=> .int(1)
    /// ```
    public func storedValue(forKey key: String) -> StoredValue? {
        if layers != nil {
            let layered = layeredValue(forKey: key)
            return layered.top?.value ?? layered.registered
        }
        if let staged = staged[key] { return staged }
        return base[key] ?? store.registeredDefault(forKey: key)
    }

    /// Whether `key` has a value of its own as this transaction sees it (registered defaults do not count).
    ///
    /// ```swift
    /// tx.hasValue(forKey: "a")  //=> true
    /// ```
    public func hasValue(forKey key: String) -> Bool {
        if let staged = staged[key] { return staged != nil }
        return base[key] != nil
    }

    /// Stages a write; `nil` removes the key. A value the store cannot hold (nested deeper than
    /// ``StoredValue/maximumDepth``, refused by the backend) makes the whole transaction fail.
    ///
    /// ```swift
    /// tx.setStoredValue(.int(1), forKey: "a")
    /// ```
    public func setStoredValue(_ value: StoredValue?, forKey key: String) {
        if let forced = layers?.computeEntry(key).upper.first(where: \.isForced) {
            if failure == nil { failure = .forced(key: key, source: forced.source) }
            return
        }
        if let value {
            do {
                try store.backend.admit(value, forKey: key)
            } catch {
                if failure == nil { failure = error }
                return
            }
        }
        staged[key] = .some(value)
    }
}

extension Transaction: AccessFailureReporting {
    /// Makes the transaction fail (nothing is committed).
    func encodingFailed(forKey key: String, error: any Error) {
        if failure == nil { failure = .unrepresentable(key: key, reason: "\(error)") }
    }

    /// Reports the failure on the store's diagnostics.
    func decodingFailed(forKey key: String, expected: String, found: StoredValue) {
        store.decodingFailed(forKey: key, expected: expected, found: found)
    }
}

extension Transaction {
    var hasLayers: Bool { layers != nil }

    /// Where this transaction's reads report a layer value that did not convert.
    var reporter: PreferenceStore { store }

    /// `key` as the layers held it when the transaction began, under this transaction's view of the user's values.
    func layeredValue(forKey key: String) -> LayeredValue {
        let user = staged[key] ?? base[key]
        return LayeredValue(
            entry: layers?.computeEntry(key) ?? .empty, user: user, registered: store.registeredDefault(forKey: key))
    }
}
