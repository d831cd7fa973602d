import Foundation

/// The `Decoder` handed to `init(from:)`; it is also its own single-value container.
///
/// Each decoder knows its parent and key instead of carrying a `codingPath` array, so a
/// nested value costs one small allocation and the path is built only for an error. All
/// stored properties are constants: a `var` in a class costs a run-time exclusivity check on
/// every access, which showed up at several percent of decoding time.
final class StoredValueDecoding: Decoder, SingleValueDecodingContainer {
    /// `nil` when there is nothing to read: `superDecoder(forKey:)` for a key that is absent.
    let value: StoredValue?
    let parent: StoredValueDecoding?
    let key: (any CodingKey)?
    /// The entries when `value` is a dictionary, else empty. Held here so that a keyed
    /// container is a single reference: the standard library's type-erasing box copies the
    /// container on every `decode(_:forKey:)`, and a lone reference copies cheapest.
    let dictionary: [String: StoredValue]

    /// `dictionary` must be the entries of `value` when it is a dictionary (callers have
    /// usually taken `value` apart already; taking it apart again here costs a copy).
    init(value: StoredValue?, dictionary: [String: StoredValue], parent: StoredValueDecoding?, key: (any CodingKey)?) {
        self.value = value
        self.dictionary = dictionary
        self.parent = parent
        self.key = key
    }

    /// A decoder for `value` with no parent.
    convenience init(root value: StoredValue) {
        if case .dictionary(let entries) = value {
            self.init(value: value, dictionary: entries, parent: nil, key: nil)
        } else {
            self.init(value: value, dictionary: [:], parent: nil, key: nil)
        }
    }

    /// A decoder for the nested `value` at `key`.
    @inline(__always)
    func child(for value: StoredValue?, key: some CodingKey) -> StoredValueDecoding {
        if case .dictionary(let entries) = value {
            StoredValueDecoding(value: value, dictionary: entries, parent: self, key: key)
        } else {
            StoredValueDecoding(value: value, dictionary: [:], parent: self, key: key)
        }
    }

    /// A decoder for the nested dictionary `value` (whose entries are `entries`) at `key`.
    @inline(__always)
    func child(for value: StoredValue, entries: [String: StoredValue], key: some CodingKey) -> StoredValueDecoding {
        StoredValueDecoding(value: value, dictionary: entries, parent: self, key: key)
    }

    /// A decoder for the nested non-dictionary `value` at `key`.
    @inline(__always)
    func child(forNonDictionary value: StoredValue, key: some CodingKey) -> StoredValueDecoding {
        StoredValueDecoding(value: value, dictionary: [:], parent: self, key: key)
    }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var decoder: StoredValueDecoding? = self
        while let current = decoder {
            if let key = current.key { keys.append(key) }
            decoder = current.parent
        }
        return keys.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary = value else {
            throw mismatch(value, expected: "dictionary", key: nil)
        }
        return KeyedDecodingContainer(StoredKeyedDecodingContainer(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw mismatch(value, expected: "array", key: nil)
        }
        return StoredUnkeyedDecodingContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() -> any SingleValueDecodingContainer {
        self
    }

    // MARK: Scalars

    /// The native value of type `Native`; `value` is `nil` when the key or element is absent.
    @inline(__always)
    func native<Native: StoredNativeCodable>(
        _ value: StoredValue?,
        as type: Native.Type,
        key: () -> (any CodingKey)?
    ) throws -> Native {
        guard let value else {
            throw mismatch(nil, expected: String(describing: Native.self), key: key())
        }
        guard let decoded = Native.fromNative(value) else {
            throw mismatch(value, expected: Native.self, key: key())
        }
        return decoded
    }

    // MARK: Errors

    func mismatch<Native: StoredNativeCodable>(_ value: StoredValue, expected: Native.Type, key: (any CodingKey)?) -> StoreError {
        .typeMismatch(
            key: StoredCodingPath.string(codingPath, appending: key),
            expected: String(describing: expected),
            found: value.foundDescription(expectingNumber: Native.isNumber)
        )
    }

    func mismatch(_ value: StoredValue?, expected: String, key: (any CodingKey)?) -> StoreError {
        .typeMismatch(
            key: StoredCodingPath.string(codingPath, appending: key),
            expected: expected,
            found: value?.typeName ?? "nothing"
        )
    }

    /// A `DecodingError` from a type's own `init(from:)` (a raw value with no matching case, an
    /// enum payload of the wrong shape), reported in StoredKit's terms at the path it names.
    static func storeError<T>(from error: DecodingError, decoding value: StoredValue, as type: T.Type) -> StoreError {
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let errorContext), .valueNotFound(_, let errorContext), .dataCorrupted(let errorContext):
            context = errorContext
        case .keyNotFound(let key, let errorContext):
            return .typeMismatch(
                key: StoredCodingPath.string(errorContext.codingPath + [key]),
                expected: "a value",
                found: "nothing"
            )
        @unknown default:
            return .typeMismatch(key: "", expected: String(describing: T.self), found: String(describing: error))
        }
        let shown: String
        switch value {
        case .array, .dictionary, .data: shown = value.typeName
        default: shown = "\(value.typeName) \(value)"
        }
        return .typeMismatch(
            key: StoredCodingPath.string(context.codingPath),
            expected: String(describing: T.self),
            found: "\(shown) (\(context.debugDescription))"
        )
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool {
        value == nil
    }

    func decode(_ type: Bool.Type) throws -> Bool { try native(value, as: type, key: { nil }) }
    func decode(_ type: String.Type) throws -> String { try native(value, as: type, key: { nil }) }
    func decode(_ type: Double.Type) throws -> Double { try native(value, as: type, key: { nil }) }
    func decode(_ type: Float.Type) throws -> Float { try native(value, as: type, key: { nil }) }
    func decode(_ type: Int.Type) throws -> Int { try native(value, as: type, key: { nil }) }
    func decode(_ type: Int8.Type) throws -> Int8 { try native(value, as: type, key: { nil }) }
    func decode(_ type: Int16.Type) throws -> Int16 { try native(value, as: type, key: { nil }) }
    func decode(_ type: Int32.Type) throws -> Int32 { try native(value, as: type, key: { nil }) }
    func decode(_ type: Int64.Type) throws -> Int64 { try native(value, as: type, key: { nil }) }
    func decode(_ type: UInt.Type) throws -> UInt { try native(value, as: type, key: { nil }) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try native(value, as: type, key: { nil }) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try native(value, as: type, key: { nil }) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try native(value, as: type, key: { nil }) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try native(value, as: type, key: { nil }) }

    @available(macOS 15.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try native(value, as: type, key: { nil }) }

    @available(macOS 15.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try native(value, as: type, key: { nil }) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let value else { throw mismatch(nil, expected: String(describing: T.self), key: nil) }
        // The value decodes from this same decoder: a single-value wrapper adds no level.
        return try decodeHere(value, as: type)
    }
}
