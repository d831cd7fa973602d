import Synchronization

/// The namespace for typed keys. Declare keys as static members in an extension, then use
/// them with leading-dot syntax wherever a ``StoredKey`` is expected.
///
/// ```swift
/// extension StoredKeys {
///     static let volume = StoredKey<Double>("volume", default: 0.5)
/// }
/// store[.volume] = 0.8
/// @Stored(.volume) var volume
/// ```
public class StoredKeys: @unchecked Sendable {  // immutable: one `let`
    /// The name the value is stored under.
    ///
    /// ```swift
    /// StoredKeys.volume.name  //=> "volume"
    /// ```
    public let name: String

    init(name: String) {
        self.name = name
    }
}

/// Keys are equal when they name the same stored value as the same type, so they can go in a
/// `Set` or be dictionary keys. The default is not compared: it is what a read falls back to,
/// not part of where the value lives.
///
/// ```swift
/// Set<StoredKeys>([StoredKeys.volume, StoredKey<Double>("volume", default: 1)]).count  //=> 1
/// StoredKey<Int>("a", default: 0) == StoredKey<String>("a", default: "")  //=> false
/// ```
extension StoredKeys: Hashable {
    /// Same name and same value type.
    ///
    /// ```swift
    /// StoredKey<Int>("count", default: 0) == StoredKey<Int>("count", default: 1)  //=> true
    /// ```
    public static func == (lhs: StoredKeys, rhs: StoredKeys) -> Bool {
        lhs.name == rhs.name && type(of: lhs) == type(of: rhs)
    }

    /// Hashes the name and the value type, consistently with ``==(_:_:)``.
    ///
    /// ```swift
    /// var byKey: [StoredKeys: String] = [StoredKeys.volume: "Volume"]
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(ObjectIdentifier(type(of: self)))
    }
}

/// A key declared once with its type and default value.
///
/// Works for every `Storable` type, any `Codable` type and `RawRepresentable` enums
/// (stored by raw value, also when the enum is `Codable`).
///
/// ```swift
/// extension StoredKeys {
///     static let launchCount = StoredKey<Int>("launchCount", default: 0)
///     static let nickname = StoredKey<String?>("nickname")  // nil until set
/// }
/// store[.launchCount] += 1
/// ```
public final class StoredKey<Value: Sendable>: StoredKeys, @unchecked Sendable {  // immutable: only `let`s of Sendable types
    /// The value read when nothing is stored (or the stored value does not decode).
    ///
    /// ```swift
    /// StoredKeys.volume.defaultValue  //=> 0.5
    /// ```
    public let defaultValue: Value
    let coder: StoredCoder<Value>
    /// The decoded-value cache of the store this key was last read from, so `store[key]`
    /// reads as fast as a `@Stored` property.
    @usableFromInline let recentCache = Mutex<DecodedValueCache<Value>?>(nil)

    init(_ name: String, default defaultValue: Value, coder: StoredCoder<Value>) {
        self.defaultValue = defaultValue
        self.coder = coder
        super.init(name: name)
    }

    /// A key for any `Codable` value.
    ///
    /// ```swift
    /// let sidebar = StoredKey<TabViewCustomization>("sidebar", default: .init())
    /// ```
    public convenience init(_ name: String, default defaultValue: Value) where Value: Codable {
        self.init(name, default: defaultValue, coder: .codable())
    }

    /// A key for a `RawRepresentable` value, stored by its raw value.
    ///
    /// ```swift
    /// enum Theme: String { case light, dark }
    /// let theme = StoredKey<Theme>("theme", default: .dark)  // stored as "dark"
    /// ```
    public convenience init(_ name: String, default defaultValue: Value)
    where Value: RawRepresentable, Value.RawValue: Codable & Sendable {
        self.init(name, default: defaultValue, coder: .rawValue())
    }

    /// A key for a value that is both `RawRepresentable` and `Codable`: stored by its raw value.
    ///
    /// ```swift
    /// enum Theme: String, Codable { case light, dark }
    /// let theme = StoredKey<Theme>("theme", default: .dark)  // stored as "dark"
    /// ```
    public convenience init(_ name: String, default defaultValue: Value)
    where Value: RawRepresentable & Codable, Value.RawValue: Codable & Sendable {
        self.init(name, default: defaultValue, coder: .rawValue())
    }

    /// A key for an optional `Codable` value: `nil` means nothing is stored.
    ///
    /// ```swift
    /// let nickname = StoredKey<String?>("nickname")
    /// ```
    public convenience init<Wrapped: Codable & Sendable>(_ name: String) where Value == Wrapped? {
        self.init(name, default: nil, coder: .codable())
    }

    /// A key for an optional `RawRepresentable` value: `nil` means nothing is stored.
    ///
    /// ```swift
    /// let lastTheme = StoredKey<Theme?>("lastTheme")
    /// ```
    public convenience init<Wrapped: RawRepresentable & Sendable>(_ name: String)
    where Value == Wrapped?, Wrapped.RawValue: Codable & Sendable {
        self.init(name, default: nil, coder: .optionalRawValue())
    }

    /// A key for an optional value that is `RawRepresentable` and `Codable`: stored by raw value.
    ///
    /// ```swift
    /// let lastTheme = StoredKey<Theme?>("lastTheme")
    /// ```
    public convenience init<Wrapped: RawRepresentable & Codable & Sendable>(_ name: String)
    where Value == Wrapped?, Wrapped.RawValue: Codable & Sendable {
        self.init(name, default: nil, coder: .optionalRawValue())
    }
}

extension StoredKey {
    /// This key's decoded-value cache in `store`, reusing the last one when it is for the same store.
    @inlinable func cache(in store: PreferenceStore) -> DecodedValueCache<Value> {
        if let recent = recentCache.withLock({ $0 }), recent.store === store { return recent }
        return makeCache(in: store)
    }

    @usableFromInline func makeCache(in store: PreferenceStore) -> DecodedValueCache<Value> {
        let cache = DecodedValueCache<Value>(slot: store.slot(for: name), store: store)
        recentCache.withLock { $0 = cache }
        return cache
    }
}
