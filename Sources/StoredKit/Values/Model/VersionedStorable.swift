/// A Codable value that stores its shape's version with it and upgrades older shapes when read.
///
/// The value is stored as `{"$version": 2, "$value": <the Codable encoding>}`. Reading a value
/// stored by an older version calls ``upgrade(from:)``; a value stored before the type adopted
/// the protocol (no version) counts as version 1. A value from a newer version does not decode:
/// the read returns the default, reports it on the store's diagnostics and leaves the stored
/// value untouched. Versions apply to values stored at the top level of a key (not inside
/// arrays, dictionaries or optionals).
///
/// ```swift
/// struct SidebarV1: Codable { var tabs: [String] }
/// struct Sidebar: VersionedStorable {
///     static let version = 2
///     var order: [String]
///     var hidden: [String]
///     static func upgrade(from old: OutdatedValue) throws -> Sidebar {
///         Sidebar(order: try old.decode(as: SidebarV1.self).tabs, hidden: [])
///     }
/// }
/// store.value(forKey: "sidebar", as: Sidebar.self)  //=> Sidebar(order: ["home"], hidden: []), from a v1 value
/// ```
public protocol VersionedStorable: Codable, Sendable {
    /// The version of the shape this type encodes; raise it when the shape changes. Starts at 1.
    ///
    /// ```swift
    /// static let version = 2
    /// ```
    static var version: Int { get }

    /// The current value built from one stored by an older version (`old.version` < ``version``).
    ///
    /// ```swift
    /// static func upgrade(from old: OutdatedValue) throws -> Sidebar {
    ///     Sidebar(order: try old.decode(as: SidebarV1.self).tabs, hidden: [])
    /// }
    /// ```
    static func upgrade(from old: OutdatedValue) throws -> Self
}

extension VersionedStorable {
    /// Without an upgrade, an older value does not decode (the read reports it and uses the default).
    ///
    /// ```swift
    /// try Sidebar.upgrade(from: old)  // throws StoreError.typeMismatch when Sidebar has no upgrade
    /// ```
    public static func upgrade(from old: OutdatedValue) throws -> Self {
        throw StoreError.typeMismatch(
            key: "", expected: "\(Self.self) version \(version)", found: "version \(old.version) (no upgrade defined)")
    }
}

/// A value stored by an older version of a ``VersionedStorable`` type, handed to its upgrade.
///
/// ```swift
/// static func upgrade(from old: OutdatedValue) throws -> Sidebar {
///     old.version  //=> 1
///     return Sidebar(order: try old.decode(as: SidebarV1.self).tabs, hidden: [])
/// }
/// ```
public struct OutdatedValue: Sendable {
    /// The version that stored the value (1 for a value stored without a version).
    ///
    /// ```swift
    /// old.version  //=> 1
    /// ```
    public let version: Int
    /// The stored value, without its version.
    ///
    /// ```swift
    /// old.storedValue  //=> .dictionary(["tabs": ...])
    /// ```
    public let storedValue: StoredValue

    /// Decodes the value as the type that stored it.
    ///
    /// ```swift
    /// try old.decode(as: SidebarV1.self).tabs  //=> ["home", "search"]
    /// ```
    public func decode<Old: Decodable>(as type: Old.Type) throws -> Old {
        try StoredValueDecoder().decode(Old.self, from: storedValue)
    }
}

/// The stored layout of a versioned value.
enum VersionedEnvelope {
    static let versionKey = "$version"
    static let valueKey = "$value"

    static func wrap(_ value: StoredValue, version: Int) -> StoredValue {
        .dictionary([versionKey: .int(Int64(version)), valueKey: value])
    }

    /// The version and the inner value; a value without the envelope is version 1.
    static func unwrap(_ stored: StoredValue) -> (version: Int, value: StoredValue) {
        guard case .dictionary(let fields) = stored, fields.count == 2,
            case .int(let version)? = fields[versionKey], let value = fields[valueKey],
            let exactVersion = Int(exactly: version)
        else { return (1, stored) }
        return (exactVersion, value)
    }
}

extension StoredCoder where Value: Codable {
    /// The versioned coder when `Value` is ``VersionedStorable``, so every typed path
    /// (`set`, `value(forKey:as:)`, ``StoredKey``, ``Stored``) stores the version.
    static func versionedIfAvailable() -> StoredCoder? {
        guard let versioned = Value.self as? any VersionedStorable.Type else { return nil }
        return versionedCoder(versioned) as? StoredCoder
    }

    /// Returned as `Any` so it can be called with an opened `any VersionedStorable.Type`.
    private static func versionedCoder<Versioned: VersionedStorable>(_ type: Versioned.Type) -> Any {
        StoredCoder<Versioned>(
            encode: { value in
                VersionedEnvelope.wrap(try StoredValueEncoder().encode(value), version: Versioned.version)
            },
            decode: { stored in
                let (version, value) = VersionedEnvelope.unwrap(stored)
                if version == Versioned.version { return try StoredValueDecoder().decode(Versioned.self, from: value) }
                guard version < Versioned.version else {
                    throw StoreError.typeMismatch(
                        key: "", expected: "\(Versioned.self) version \(Versioned.version) or older",
                        found: "version \(version), written by a newer app")
                }
                return try Versioned.upgrade(from: OutdatedValue(version: version, storedValue: value))
            }
        )
    }
}

extension MigrationContext {
    /// Rewrites the value of `key` in the current version of `type` (upgrading an older one), so
    /// the stored data no longer depends on old shapes. Does nothing if the key has no value.
    ///
    /// ```swift
    /// Migration(version: 4, "sidebar v2") { m in try m.upgradeValue("sidebar", to: Sidebar.self) }
    /// ```
    public func upgradeValue<Versioned: VersionedStorable>(_ key: String, to type: Versioned.Type) throws {
        guard let stored = staging.values[key], let coder = StoredCoder<Versioned>.versionedIfAvailable() else { return }
        let value: Versioned
        do {
            value = try coder.decode(stored)
        } catch {
            throw StoreError.typeMismatch(key: key, expected: String(describing: Versioned.self), found: "\(error)")
        }
        staging.values[key] = try coder.encode(value)
    }
}
