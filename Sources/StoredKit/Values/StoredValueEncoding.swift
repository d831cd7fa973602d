import Foundation

/// What one encoder has been given so far.
enum StoredEncodedNode {
    case value(StoredValue)
    /// `encodeNil()` / `Optional.none`: a keyed parent omits it, anywhere else it is an error.
    case null
    case dictionary(StoredDictionaryBuilder)
    case array(StoredArrayBuilder)
}

/// The dictionary a keyed container fills. Finished values go straight into `values`; only
/// nested containers and super encoders, which may still be written to, wait in `pending`, so
/// the common case builds one dictionary and never converts it.
final class StoredDictionaryBuilder {
    var values: [String: StoredValue] = [:]
    var pending: [String: StoredValueEncoding] = [:]

    func set(_ value: StoredValue?, forKey key: String) {
        values[key] = value
        if !pending.isEmpty { pending[key] = nil }
    }

    func setPending(_ encoder: StoredValueEncoding, forKey key: String) {
        values[key] = nil
        pending[key] = encoder
    }

    func finish() throws -> StoredValue {
        for (key, encoder) in pending {
            values[key] = try encoder.finish()
        }
        pending = [:]
        return .dictionary(values)
    }
}

/// The array an unkeyed container fills; pending slots hold a placeholder until `finish()`.
final class StoredArrayBuilder {
    static let nilReason = "a property list array cannot hold nil; leave the element out or use a sentinel value"

    var values: [StoredValue] = []
    var pending: [(index: Int, encoder: StoredValueEncoding)] = []

    func finish() throws -> StoredValue {
        for (index, encoder) in pending {
            guard let value = try encoder.finish() else {
                throw StoreError.unrepresentable(
                    key: StoredCodingPath.string(encoder.codingPath),
                    reason: StoredArrayBuilder.nilReason
                )
            }
            values[index] = value
        }
        pending = []
        return .array(values)
    }
}

/// The `Encoder` handed to `encode(to:)`; it is also its own single-value container.
///
/// Each encoder knows its parent and key instead of carrying a `codingPath` array, so a
/// nested value costs one small allocation and the path is built only when asked for.
final class StoredValueEncoding: Encoder, SingleValueEncodingContainer {
    let parent: StoredValueEncoding?
    let key: (any CodingKey)?
    var node: StoredEncodedNode?

    init(parent: StoredValueEncoding?, key: (any CodingKey)?) {
        self.parent = parent
        self.key = key
    }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var encoder: StoredValueEncoding? = self
        while let current = encoder {
            if let key = current.key { keys.append(key) }
            encoder = current.parent
        }
        return keys.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // A class and its superclass may both ask for a keyed container: they share one dictionary.
        if case .dictionary(let builder) = node {
            return KeyedEncodingContainer(StoredKeyedEncodingContainer(encoder: self, builder: builder))
        }
        let builder = StoredDictionaryBuilder()
        node = .dictionary(builder)
        return KeyedEncodingContainer(StoredKeyedEncodingContainer(encoder: self, builder: builder))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array(let builder) = node {
            return StoredUnkeyedEncodingContainer(encoder: self, builder: builder)
        }
        let builder = StoredArrayBuilder()
        node = .array(builder)
        return StoredUnkeyedEncodingContainer(encoder: self, builder: builder)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }

    /// The finished value; `nil` stands for `encodeNil()`. An encoder given nothing at all
    /// yields an empty dictionary, as an empty struct does.
    func finish() throws -> StoredValue? {
        switch node {
        case nil: .dictionary([:])
        case .value(let value): value
        case .null: nil
        case .dictionary(let builder): try builder.finish()
        case .array(let builder): try builder.finish()
        }
    }

    /// Encodes one nested value: natively when its type has a ``StoredValue`` case, otherwise
    /// through its own `encode(to:)` into a child encoder. `nil` stands for `encodeNil()`.
    /// `key` is generic so that the native path never boxes it into an existential.
    func box<T: Encodable, Key: CodingKey>(_ value: T, key: Key) throws -> StoredValue? {
        if let native = value as? any StoredNativeCodable {
            return try nativeValue(native, key: { key })
        }
        let child = StoredValueEncoding(parent: self, key: key)
        try value.encode(to: child)
        return try child.finish()
    }

    func nativeValue(_ native: some StoredNativeCodable, key: () -> (any CodingKey)?) throws -> StoredValue {
        guard let value = native.nativeStoredValue else {
            throw StoreError.unrepresentable(
                key: StoredCodingPath.string(codingPath, appending: key()),
                reason: "\(native) does not fit in 64 bits; store it as a string"
            )
        }
        return value
    }

    // MARK: SingleValueEncodingContainer

    func encodeNil() {
        node = .null
    }

    func encode(_ value: Bool) { node = .value(.bool(value)) }
    func encode(_ value: String) { node = .value(.string(value)) }
    func encode(_ value: Double) { node = .value(.double(value)) }
    func encode(_ value: Float) { node = .value(.double(Double(value))) }
    func encode(_ value: Int) { node = .value(.int(Int64(value))) }
    func encode(_ value: Int8) { node = .value(.int(Int64(value))) }
    func encode(_ value: Int16) { node = .value(.int(Int64(value))) }
    func encode(_ value: Int32) { node = .value(.int(Int64(value))) }
    func encode(_ value: Int64) { node = .value(.int(value)) }
    func encode(_ value: UInt) { node = .value(StoredValue(UInt64(value))) }
    func encode(_ value: UInt8) { node = .value(.int(Int64(value))) }
    func encode(_ value: UInt16) { node = .value(.int(Int64(value))) }
    func encode(_ value: UInt32) { node = .value(.int(Int64(value))) }
    func encode(_ value: UInt64) { node = .value(StoredValue(value)) }

    @available(macOS 15.0, *)
    func encode(_ value: Int128) throws { node = .value(try nativeValue(value, key: { nil })) }

    @available(macOS 15.0, *)
    func encode(_ value: UInt128) throws { node = .value(try nativeValue(value, key: { nil })) }

    func encode<T: Encodable>(_ value: T) throws {
        if let native = value as? any StoredNativeCodable {
            node = .value(try nativeValue(native, key: { nil }))
            return
        }
        // The value encodes into this same encoder: a single-value wrapper adds no level.
        try value.encode(to: self)
    }
}
