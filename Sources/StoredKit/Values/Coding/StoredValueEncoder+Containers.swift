import Foundation

/// Appends to its encoder's `entries`; `nil` (and `encodeNil`) leaves the key out.
struct StoredKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: StoredValueEncoding

    var codingPath: [any CodingKey] { encoder.codingPath }

    @inline(__always)
    private func set(_ value: StoredValue?, forKey key: Key) {
        encoder.entries.append(StoredKeyedEntry(key: key.stringValue, value: value))
    }

    mutating func encodeNil(forKey key: Key) { set(nil, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) { set(.bool(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) { set(.string(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) { set(.double(value), forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) { set(.double(Double(value)), forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(.int(value), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) { set(StoredValue(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) { set(StoredValue(value), forKey: key) }

    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws {
        set(try encoder.nativeValue(value, key: { key }), forKey: key)
    }

    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        set(try encoder.nativeValue(value, key: { key }), forKey: key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try encoder.box(value, key: key), forKey: key)
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
        let index = encoder.entries.count
        encoder.entries.append(StoredKeyedEntry(key: key.stringValue, value: nil))
        return encoder.pendingChild(key: key, index: index)
    }
}

/// Appends to its encoder's `elements`; `nil` cannot be stored in a property list array and throws.
struct StoredUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: StoredValueEncoding

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.elements.count }

    private var nextKey: StoredIndexKey { StoredIndexKey(index: encoder.elements.count) }

    @inline(__always)
    private func append(_ value: StoredValue) {
        encoder.elements.append(value)
    }

    mutating func encodeNil() throws {
        throw StoreError.unrepresentable(
            key: StoredCodingPath.string(codingPath, appending: nextKey),
            reason: StoredValueEncoding.nilInArrayReason
        )
    }

    mutating func encode(_ value: Bool) { append(.bool(value)) }
    mutating func encode(_ value: String) { append(.string(value)) }
    mutating func encode(_ value: Double) { append(.double(value)) }
    mutating func encode(_ value: Float) { append(.double(Double(value))) }
    mutating func encode(_ value: Int) { append(.int(Int64(value))) }
    mutating func encode(_ value: Int8) { append(.int(Int64(value))) }
    mutating func encode(_ value: Int16) { append(.int(Int64(value))) }
    mutating func encode(_ value: Int32) { append(.int(Int64(value))) }
    mutating func encode(_ value: Int64) { append(.int(value)) }
    mutating func encode(_ value: UInt) { append(StoredValue(UInt64(value))) }
    mutating func encode(_ value: UInt8) { append(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) { append(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) { append(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) { append(StoredValue(value)) }

    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128) throws {
        append(try encoder.nativeValue(value, key: { nextKey }))
    }

    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128) throws {
        append(try encoder.nativeValue(value, key: { nextKey }))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = nextKey
        guard let stored = try encoder.box(value, key: key) else {
            throw StoreError.unrepresentable(
                key: StoredCodingPath.string(codingPath, appending: key),
                reason: StoredValueEncoding.nilInArrayReason
            )
        }
        append(stored)
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
        let index = encoder.elements.count
        append(.bool(false))  // placeholder, replaced when the encoder finishes
        return encoder.pendingChild(key: StoredIndexKey(index: index), index: index)
    }
}
