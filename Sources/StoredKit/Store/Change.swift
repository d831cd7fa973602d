/// One key's change, as delivered to ``PreferenceStore/changes`` and untyped observers.
///
/// ```swift
/// for await change in store.changes {
///     print(change)  //=> volume: 0.5 -> 0.8 (local)
/// }
/// ```
public struct Change: Sendable, Equatable, CustomStringConvertible {
    /// Where a change came from.
    ///
    /// ```swift
    /// if change.origin == .external { reloadUI() }
    /// ```
    public enum Origin: Sendable, Hashable {
        /// A write made through this store.
        case local
        /// A write made by another store or process on the same data.
        case external
        /// A migration that ran when the store opened.
        case migration
    }

    /// The key that changed.
    ///
    /// ```swift
    /// change.key  //=> "volume"
    /// ```
    public let key: String
    /// The stored value before the change; `nil` when there was none.
    ///
    /// ```swift
    /// change.oldValue  //=> .double(0.5)
    /// ```
    public let oldValue: StoredValue?
    /// The stored value after the change; `nil` when the key was removed.
    ///
    /// ```swift
    /// change.newValue  //=> .double(0.8)
    /// ```
    public let newValue: StoredValue?
    /// Who made the change.
    ///
    /// ```swift
    /// change.origin  //=> .external
    /// ```
    public let origin: Origin
    /// In a store with layers, the layer the new value comes from, taken with the change itself: a
    /// later change in another layer, made before this one is handled, does not alter it. `nil`
    /// in a store without layers, or when no layer holds the key any more (registered defaults and
    /// the key's default are not in a change).
    ///
    /// ```swift
    /// for await change in store.changes {
    ///     print(change.source)  //=> Optional(.forced(location: "/etc/xdg/myapp/forced.plist"))
    /// }
    /// ```
    public var source: ValueSource? { layered?.new.top?.source }
    /// In a store with layers, the key as every layer held it before and after: a typed observer
    /// resolves these, so text converts and a value that does not decode falls through.
    var layered: (old: LayeredValue, new: LayeredValue)? = nil
    /// The highest value stayed as it was and a lower layer's changed. Only a typed observer can
    /// tell whether that matters (the highest value may not decode as its type, so a read falls
    /// through to the changed one); observers of raw changes never see such a record.
    var isBelowTop = false

    /// Creates a change record.
    ///
    /// ```swift
    /// Change(key: "a", oldValue: nil, newValue: .int(1), origin: .local)
    /// ```
    public init(key: String, oldValue: StoredValue?, newValue: StoredValue?, origin: Origin) {
        self.key = key
        self.oldValue = oldValue
        self.newValue = newValue
        self.origin = origin
    }

    /// Equal when key, values and origin are: how the layers held it is not part of the change.
    ///
    /// ```swift
    /// Change(key: "a", oldValue: nil, newValue: .int(1), origin: .local) == change  //=> true
    /// ```
    public static func == (lhs: Change, rhs: Change) -> Bool {
        lhs.key == rhs.key && lhs.oldValue == rhs.oldValue && lhs.newValue == rhs.newValue && lhs.origin == rhs.origin
    }

    /// `key: old -> new (origin)`.
    ///
    /// ```swift
    /// Change(key: "a", oldValue: nil, newValue: .int(1), origin: .local).description  //=> a: nil -> 1 (local)
    /// ```
    public var description: String {
        "\(key): \(oldValue.map(\.description) ?? "nil") -> \(newValue.map(\.description) ?? "nil") (\(origin))"
    }
}

/// A typed change of one ``StoredKey``: old and new value already decoded (defaults applied).
///
/// ```swift
/// let token = store.observe(.volume) { change in
///     print(change.oldValue, change.newValue, change.origin)  //=> 0.5 0.8 local
/// }
/// ```
public struct ValueChange<Value: Sendable>: Sendable {
    /// The key's name.
    ///
    /// ```swift
    /// change.key  //=> "volume"
    /// ```
    public let key: String
    /// The value before the change (the default when nothing was stored).
    ///
    /// ```swift
    /// change.oldValue  //=> 0.5
    /// ```
    public let oldValue: Value
    /// The value after the change (the default when the key was removed).
    ///
    /// ```swift
    /// change.newValue  //=> 0.8
    /// ```
    public let newValue: Value
    /// Who made the change.
    ///
    /// ```swift
    /// change.origin  //=> .local
    /// ```
    public let origin: Change.Origin
}

extension Change {
    /// Whether `key`'s typed read is the same before and after this change: only a change below
    /// the highest value can be, when both sides resolve from the same value.
    func readsTheSame<Value>(as key: StoredKey<Value>) -> Bool {
        guard isBelowTop, let layered else { return false }
        return layered.old.resolvedValue(decode: key.coder.decode) == layered.new.resolvedValue(decode: key.coder.decode)
    }
}
