import Foundation

/// Decodes any `Decodable` type straight from a ``StoredValue`` tree, with no JSON in between.
///
/// It reads what ``StoredValueEncoder`` writes: dictionaries for structs and classes, arrays,
/// native `.date` and `.data`, URLs from strings. Numbers convert when the value fits exactly:
/// an `Int8` accepts `.int(100)` but not `.int(300)`, an `Int` accepts `.double(3)` but not
/// `.double(2.5)`, and a `Double` accepts any integer. A key that is missing reads as `nil` for
/// an optional property.
///
/// ```swift
/// struct Window: Codable { var title: String; var size: [Int]; var note: String? }
/// let window = try StoredValueDecoder().decode(
///     Window.self, from: .dictionary(["title": .string("Main"), "size": .array([.int(800), .int(600)])]))
/// window.size  //=> [800, 600]
/// window.note  //=> nil
/// ```
///
/// A value of the wrong shape throws ``StoreError/typeMismatch(key:expected:found:)`` naming the
/// path inside the value, for example `tabs.home.order`.
///
/// One decoder object serves the whole tree, entering each nested value in turn, so a keyed
/// container reads the value being decoded when it is used. Use containers inside the
/// `init(from:)` that asked for them, as Codable implementations do: one kept and read after
/// that `init(from:)` returned reads another value, and after the decoding has returned it
/// finds nothing (an error).
public struct StoredValueDecoder: Sendable {
    /// Makes a decoder; it has no options and can be reused freely.
    ///
    /// ```swift
    /// let decoder = StoredValueDecoder()
    /// try decoder.decode([Int].self, from: .array([.int(1)]))  //=> [1]
    /// ```
    public init() {}

    /// Decodes a `T` from `value`.
    ///
    /// Throws ``StoreError/typeMismatch(key:expected:found:)`` when `value` has another shape,
    /// when an integer does not fit the requested width, or when a required key is missing
    /// (found is then "nothing"). Errors a type's own `init(from:)` throws as `DecodingError`
    /// are reported as a type mismatch too; any other error is passed on unchanged.
    ///
    /// ```swift
    /// try StoredValueDecoder().decode(Int8.self, from: .int(7))    //=> 7
    /// try StoredValueDecoder().decode(Int8.self, from: .int(300))  // throws typeMismatch(key: "", expected: "Int8", ...)
    /// ```
    public func decode<T: Decodable>(_ type: T.Type, from value: StoredValue) throws -> T {
        let decoding = DecodingSession(value: value, reusesContainers: true)
        defer { decoding.finish() }
        do {
            return try decoding.decode(type)
        } catch let error as DecodingError {
            throw DecodingSession.storeError(from: error, decoding: value, as: type)
        }
    }
}
