import Foundation

/// Reads from a dictionary it shares with the ``StoredValue`` (no copy). Every `decodeIfPresent`
/// is implemented directly so an optional property costs one lookup, not three.
///
/// Its only stored property is the decoder, whose current value is the dictionary it reads:
/// `KeyedDecodingContainer` copies the container out of its box on every call, through value
/// witnesses that are slow for a generic struct with more than one reference in it.
struct StoredKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: DecodingSession

    private var dictionary: [String: StoredValue] {
        @inline(__always) get { decoder.dictionary }
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { dictionary.keys.compactMap { Key(stringValue: $0) } }

    /// The value for `key`. Most Codable structs have a handful of properties, and comparing
    /// a few short strings is cheaper than hashing one, so small dictionaries are scanned.
    @inline(__always)
    private func value(forKey key: Key) -> StoredValue? {
        let name = key.stringValue
        let dictionary = dictionary  // taken out of the decoder's current value once
        guard dictionary.count <= 8 else { return dictionary[name] }
        // Only the keys are compared; the value is copied (retained) for the match alone.
        var index = dictionary.startIndex
        while index != dictionary.endIndex {
            if dictionary.keys[index] == name { return dictionary.values[index] }
            dictionary.formIndex(after: &index)
        }
        return nil
    }

    func contains(_ key: Key) -> Bool {
        value(forKey: key) != nil
    }

    /// A property list has no null: only an absent key reads as `nil`.
    func decodeNil(forKey key: Key) -> Bool {
        value(forKey: key) == nil
    }

    @inline(__always)
    private func native<Native: StoredNativeCodable>(_ type: Native.Type, forKey key: Key) throws -> Native {
        try decoder.native(value(forKey: key), as: type, key: { key })
    }

    @inline(__always)
    private func nativeIfPresent<Native: StoredNativeCodable>(_ type: Native.Type, forKey key: Key) throws -> Native? {
        guard let value = value(forKey: key) else { return nil }
        return try decoder.native(value, as: type, key: { key })
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try native(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try native(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try native(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try native(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try native(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try native(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try native(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try native(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try native(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try native(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try native(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try native(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try native(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try native(type, forKey: key) }

    @available(macOS 15.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try native(type, forKey: key) }

    @available(macOS 15.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try native(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = value(forKey: key) else {
            throw decoder.mismatch(nil, expected: String(describing: T.self), type: T.self, key: key)
        }
        return try decoder.unbox(value, as: type, key: key)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try nativeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try nativeIfPresent(type, forKey: key) }

    @available(macOS 15.0, *)
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { try nativeIfPresent(type, forKey: key) }

    @available(macOS 15.0, *)
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { try nativeIfPresent(type, forKey: key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = value(forKey: key) else { return nil }
        return try decoder.unbox(value, as: type, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try child(forKey: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(forKey: key).unkeyedContainer()
    }

    func superDecoder() -> any Decoder {
        decoder.separate(for: dictionary[StoredSuperKey().stringValue], key: StoredSuperKey())
    }

    func superDecoder(forKey key: Key) -> any Decoder {
        child(forKey: key)
    }

    /// A decoder for the value at `key`; a nested container then requires it to exist.
    private func child(forKey key: Key) -> DecodingSession {
        decoder.separate(for: dictionary[key.stringValue], key: key)
    }
}

/// Reads an array element by element; it shares the array with the ``StoredValue`` (no copy).
struct StoredUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: DecodingSession
    let elements: [StoredValue]
    private(set) var currentIndex = 0

    init(decoder: DecodingSession, elements: [StoredValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// A property list array holds no nulls, so this is `false` except past the end.
    mutating func decodeNil() -> Bool {
        isAtEnd
    }

    @inline(__always)
    private mutating func native<Native: StoredNativeCodable>(_ type: Native.Type) throws -> Native {
        let index = currentIndex
        let value = index < elements.count ? elements[index] : nil
        let result = try decoder.native(value, as: type, key: { StoredIndexKey(index: index) })
        currentIndex = index + 1
        return result
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try native(type) }
    mutating func decode(_ type: String.Type) throws -> String { try native(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try native(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try native(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try native(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try native(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try native(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try native(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try native(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try native(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try native(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try native(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try native(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try native(type) }

    @available(macOS 15.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try native(type) }

    @available(macOS 15.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try native(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let key = StoredIndexKey(index: currentIndex)
        guard currentIndex < elements.count else {
            throw decoder.mismatch(nil, expected: String(describing: T.self), type: T.self, key: key)
        }
        let result = try decoder.unbox(elements[currentIndex], as: type, key: key)
        currentIndex += 1
        return result
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey>
    {
        let container = try nextChild().container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try nextChild().unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = nextChild()
        currentIndex += 1
        return decoder
    }

    /// A decoder for the current element (which may be past the end: it then reads as nothing).
    private func nextChild() -> DecodingSession {
        let value = currentIndex < elements.count ? elements[currentIndex] : nil
        return decoder.separate(for: value, key: StoredIndexKey(index: currentIndex))
    }
}
