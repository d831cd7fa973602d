import Foundation

/// Encodes any `Encodable` value straight into a ``StoredValue`` tree, with no JSON in between.
///
/// Structs and classes become dictionaries, arrays and sets become arrays, `[Int: V]` becomes a
/// dictionary keyed by the numbers' text. `Date` and `Data` stay native (`.date`, `.data`),
/// `URL` becomes its absolute string, every integer width becomes ``StoredValue/int(_:)`` (or
/// ``StoredValue/uint(_:)`` above `Int64.max`) and `Float`/`Double` become
/// ``StoredValue/double(_:)``, NaN and infinities included. An optional property that is `nil`
/// is left out.
///
/// ```swift
/// struct Window: Codable { var title: String; var size: [Int]; var note: String? }
/// try StoredValueEncoder().encode(Window(title: "Main", size: [800, 600], note: nil))
/// //=> {size = (800, 600); title = "Main"}
/// ```
///
/// A property list has no `null`, so `nil` at the top level or inside an array throws
/// ``StoreError/unrepresentable(key:reason:)`` naming the path, for example `tabs[2]`.
public struct StoredValueEncoder: Sendable {
    /// Makes an encoder; it has no options and can be reused freely.
    ///
    /// ```swift
    /// let encoder = StoredValueEncoder()
    /// try encoder.encode([1, 2])  //=> (1, 2)
    /// ```
    public init() {}

    /// Encodes `value`.
    ///
    /// Throws ``StoreError/unrepresentable(key:reason:)`` for what a property list cannot hold
    /// (`nil` at the top level or in an array, an `Int128` beyond 64 bits) and passes on any
    /// error the value's own `encode(to:)` throws.
    ///
    /// ```swift
    /// try StoredValueEncoder().encode(["volume": 0.5])  //=> {volume = 0.5}
    /// try StoredValueEncoder().encode([Int?.none])      // throws unrepresentable(key: "[0]", ...)
    /// ```
    public func encode<T: Encodable>(_ value: T) throws -> StoredValue {
        try EncodingSession.encode(value)
    }
}
