import Foundation

/// Writes into its encoder's dictionary; `nil` (and `encodeNil`) leaves the key out.
struct StoredKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: StoredValueEncoding
    let builder: StoredDictionaryBuilder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) {
        builder.set(nil, forKey: key.stringValue)
    }

    mutating func encode(_ value: Bool, forKey key: Key) { builder.set(.bool(value), forKey: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) { builder.set(.string(value), forKey: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) { builder.set(.double(value), forKey: key.stringValue) }
    mutating func encode(_ value: Float, forKey key: Key) { builder.set(.double(Double(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) { builder.set(.int(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int8, forKey key: Key) { builder.set(.int(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int16, forKey key: Key) { builder.set(.int(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int32, forKey key: Key) { builder.set(.int(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) { builder.set(.int(value), forKey: key.stringValue) }
    mutating func encode(_ value: UInt, forKey key: Key) { builder.set(StoredValue(UInt64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt8, forKey key: Key) { builder.set(.int(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt16, forKey key: Key) { builder.set(.int(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt32, forKey key: Key) { builder.set(.int(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt64, forKey key: Key) { builder.set(StoredValue(value), forKey: key.stringValue) }

    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws {
        builder.set(try encoder.nativeValue(value, key: { key }), forKey: key.stringValue)
    }

    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        builder.set(try encoder.nativeValue(value, key: { key }), forKey: key.stringValue)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        builder.set(try encoder.box(value, key: key), forKey: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        child(forKey: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        child(forKey: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        child(forKey: StoredSuperKey())
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        child(forKey: key)
    }

    /// An encoder whose result is collected when this container's encoder finishes.
    private func child(forKey key: some CodingKey) -> StoredValueEncoding {
        let child = StoredValueEncoding(parent: encoder, key: key)
        builder.setPending(child, forKey: key.stringValue)
        return child
    }
}

/// Appends to its encoder's array; `nil` cannot be stored in a property list array and throws.
struct StoredUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: StoredValueEncoding
    let builder: StoredArrayBuilder

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { builder.values.count }

    private var nextKey: StoredIndexKey { StoredIndexKey(index: builder.values.count) }

    mutating func encodeNil() throws {
        throw StoreError.unrepresentable(
            key: StoredCodingPath.string(codingPath, appending: nextKey),
            reason: StoredArrayBuilder.nilReason
        )
    }

    mutating func encode(_ value: Bool) { builder.values.append(.bool(value)) }
    mutating func encode(_ value: String) { builder.values.append(.string(value)) }
    mutating func encode(_ value: Double) { builder.values.append(.double(value)) }
    mutating func encode(_ value: Float) { builder.values.append(.double(Double(value))) }
    mutating func encode(_ value: Int) { builder.values.append(.int(Int64(value))) }
    mutating func encode(_ value: Int8) { builder.values.append(.int(Int64(value))) }
    mutating func encode(_ value: Int16) { builder.values.append(.int(Int64(value))) }
    mutating func encode(_ value: Int32) { builder.values.append(.int(Int64(value))) }
    mutating func encode(_ value: Int64) { builder.values.append(.int(value)) }
    mutating func encode(_ value: UInt) { builder.values.append(StoredValue(UInt64(value))) }
    mutating func encode(_ value: UInt8) { builder.values.append(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) { builder.values.append(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) { builder.values.append(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) { builder.values.append(StoredValue(value)) }

    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128) throws {
        builder.values.append(try encoder.nativeValue(value, key: { nextKey }))
    }

    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128) throws {
        builder.values.append(try encoder.nativeValue(value, key: { nextKey }))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = nextKey
        guard let stored = try encoder.box(value, key: key) else {
            throw StoreError.unrepresentable(
                key: StoredCodingPath.string(codingPath, appending: key),
                reason: StoredArrayBuilder.nilReason
            )
        }
        builder.values.append(stored)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        nextChild().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        nextChild().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        nextChild()
    }

    /// Reserves the next slot for an encoder that is filled in when this container's encoder finishes.
    private func nextChild() -> StoredValueEncoding {
        let index = builder.values.count
        let child = StoredValueEncoding(parent: encoder, key: StoredIndexKey(index: index))
        builder.values.append(.bool(false))  // placeholder, replaced in StoredArrayBuilder.finish()
        builder.pending.append((index, child))
        return child
    }
}
