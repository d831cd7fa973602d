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
///
/// A transaction lives as long as its body: kept and used afterwards, its writes are ignored and
/// reported on the store's ``PreferenceStore/diagnostics`` (while the store lives), and its reads
/// answer what it saw and staged. A transaction opened inside another one's body on the same
/// store joins it as a savepoint: see ``PreferenceStore/transaction(_:)``.
public final class Transaction: PreferenceAccess {
    private let base: [String: StoredValue]
    /// The enclosing transaction this one joins (a savepoint), whose view is this one's base.
    private let parent: Transaction?
    /// Weak: a transaction kept past its body must not keep the store alive, nor trap once it is gone.
    private weak var store: PreferenceStore?
    /// The writes made so far; `nil` marks a removal.
    private(set) var staged: [String: StoredValue?] = [:]
    /// The first value that could not be encoded: the whole transaction then fails.
    private(set) var failure: StoreError?
    /// False once the body returned or threw: later writes are refused.
    private(set) var isOpen = true

    /// The store's other layers when the transaction began (`nil` without layers).
    private let layers: LayerTable?

    init(base: [String: StoredValue], store: PreferenceStore, layers: LayerTable? = nil) {
        self.base = base
        self.parent = nil
        self.store = store
        self.layers = layers
    }

    /// A savepoint inside `parent`: it reads through `parent` and hands its writes to it on success.
    init(joining parent: Transaction, store: PreferenceStore) {
        self.base = [:]
        self.parent = parent
        self.store = store
        self.layers = parent.layers
    }

    /// Ends the transaction: from now on a write is a reported no-op.
    func close() { isOpen = false }

    /// Takes a savepoint's writes as its own (the savepoint's body returned).
    func adopt(_ savepoint: Transaction) {
        staged.merge(savepoint.staged) { _, new in new }
    }

    /// Every key with a value, this transaction's writes included, sorted.
    ///
    /// ```swift
    /// tx.keys  //=> ["a", "volume"]
    /// ```
    public var keys: [String] {
        var keys = parent.map { Set($0.keys) } ?? Set(base.keys)
        for (key, value) in staged {
            if value == nil { keys.remove(key) } else { keys.insert(key) }
        }
        return keys.union(layers?.keys ?? []).sorted()
    }

    /// The value as this transaction sees it: in a store with layers, through the layers as they
    /// were when it began, so after a write of a key an argument or environment variable overrides,
    /// the override is read, as the store reads it once committed.
    ///
    /// ```swift
    /// tx.storedValue(forKey: "a")  //=> .int(1)
    /// ```
    public func storedValue(forKey key: String) -> StoredValue? {
        if layers != nil {
            let layered = layeredValue(forKey: key)
            return layered.top?.value ?? layered.registered
        }
        return userStoredValue(forKey: key) ?? store?.registeredDefault(forKey: key)
    }

    /// The user's own value of `key` as this transaction sees it: its writes, then its parent's, then the base.
    private func userStoredValue(forKey key: String) -> StoredValue? {
        if let staged = staged[key] { return staged }
        if let parent { return parent.userStoredValue(forKey: key) }
        return base[key]
    }

    /// Whether `key` has a value of its own as this transaction sees it (registered defaults do not count).
    ///
    /// ```swift
    /// tx.hasValue(forKey: "a")  //=> true
    /// ```
    public func hasValue(forKey key: String) -> Bool {
        if let staged = staged[key] { return staged != nil }
        return parent?.hasValue(forKey: key) ?? (base[key] != nil)
    }

    /// Stages a write; `nil` removes the key. A value the store cannot hold (nested deeper than
    /// ``StoredValue/maximumDepth``, refused by the backend) makes the whole transaction fail.
    /// After the body, a write is ignored and reported as ``StoreEvent/encodingFailed(key:reason:)``.
    ///
    /// ```swift
    /// tx.setStoredValue(.int(1), forKey: "a")
    /// ```
    public func setStoredValue(_ value: StoredValue?, forKey key: String) {
        guard isOpen, let store else {
            store?.report(.encodingFailed(key: key, reason: Self.endedReason))
            return
        }
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
    /// Why a write to a transaction whose body ended was ignored.
    static let endedReason =
        "the transaction it was written to had ended (its body returned or threw); write through the store, "
        + "or inside a new transaction"

    /// Makes the transaction fail (nothing is committed).
    func encodingFailed(forKey key: String, error: any Error) {
        guard isOpen else {
            store?.report(.encodingFailed(key: key, reason: Self.endedReason))
            return
        }
        if failure == nil { failure = .unrepresentable(key: key, reason: "\(error)") }
    }

    /// Reports the failure on the store's diagnostics.
    func decodingFailed(forKey key: String, expected: String, found: StoredValue) {
        store?.decodingFailed(forKey: key, expected: expected, found: found)
    }
}

extension Transaction {
    var hasLayers: Bool { layers != nil }

    /// Where this transaction's reads report a layer value that did not convert.
    var reporter: PreferenceStore? { store }

    /// `key` as the layers held it when the transaction began, under this transaction's view of the user's values.
    func layeredValue(forKey key: String) -> LayeredValue {
        LayeredValue(
            entry: layers?.computeEntry(key) ?? .empty, user: userStoredValue(forKey: key),
            registered: store?.registeredDefault(forKey: key))
    }
}
