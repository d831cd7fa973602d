import Foundation

// Performance note: like the decoder's unboxing, this code runs unspecialized (`T` is only
// known at run time). Scalars are recognised by comparing metatypes, which is far cheaper than
// the conformance lookup behind `value as? any Protocol`; only a value one pointer wide (an
// `Array`, a `Dictionary`) is asked whether it is a collection with a direct path.

extension EncodingSession {
    /// Encodes one nested value: natively when its type has a ``StoredValue`` case, element by
    /// element for `[E]`, `Set<E>` and `[String: V]`, otherwise through its own `encode(to:)` in a
    /// frame of its own. `nil` stands for `encodeNil()`. `key` is generic so that the fast paths
    /// never box it into an existential.
    @inline(__always)
    func box<T: Encodable, Key: CodingKey>(_ value: T, key: Key) throws -> StoredValue? {
        if let kind = StoredScalarKind(T.self) {
            return try scalarValue(kind, value, key: { key })
        }
        try checkContainerDepth()
        if T.self == [String].self {
            // The commonest collection, without the conformance lookup of the cast below.
            return .array(unsafeBitCast(value, to: [String].self).map { .string($0) })
        }
        if Self.mayBeCollection(T.self) {
            if isPoolable, let direct = directType(T.self) {
                return try entering(key) { try direct.encodeDirectly(value, in: self) }
            }
            if let direct = value as? any DirectlyEncodable {
                return try entering(key) { try direct.encodeDirectly(in: self) }
            }
        }
        if T.self == UUID.self {
            // What UUID's own `encode(to:)` writes, without a frame.
            return .string(unsafeBitCast(value, to: UUID.self).uuidString)
        }
        return try encodeInFrame(value, key: key)
    }

    /// The same choice as ``box(_:key:)`` for the value the open frame itself holds (the top
    /// level, or a single-value container).
    func encodeHere<T: Encodable>(_ value: T) throws {
        if let kind = StoredScalarKind(T.self) {
            frame = .value(try scalarValue(kind, value, key: { nil }))
        } else if isPoolable, Self.mayBeCollection(T.self), let direct = directType(T.self) {
            frame = .value(try direct.encodeDirectly(value, in: self))
        } else if Self.mayBeCollection(T.self), let direct = value as? any DirectlyEncodable {
            frame = .value(try direct.encodeDirectly(in: self))
        } else {
            try value.encode(to: self)
        }
    }

    /// `T` as a collection with a direct path, if it is one. The conformance lookup behind the
    /// cast costs about a thousand instructions, so its answer is kept per type in the session
    /// (which the pool keeps too). A no sends the caller on to the cast of the value, as before:
    /// `Optional<[E]>` is no such type, but its value casts to one unless it is `nil`. Only a
    /// pooled session asks: a session used once would pay both casts for a type that is no collection.
    @inline(__always)
    private func directType<T>(_ type: T.Type) -> (any DirectlyEncodable.Type)? {
        let id = ObjectIdentifier(T.self)
        for known in directTypes where known.id == id {
            return known.type
        }
        let direct = T.self as? any DirectlyEncodable.Type
        if directTypes.count < Self.maximumDirectTypes {
            directTypes.append(DirectType(id: id, type: direct))
        }
        return direct
    }

    /// How many types' answers a session keeps; a few collection types are the common case.
    static let maximumDirectTypes = 32

    /// `Array`, `Set` and `Dictionary` are a single pointer wide, which rules out most structs
    /// and every enum without a payload (reading the size is nearly free). An `Optional` of them
    /// is as wide, and the cast unwraps it, which is what `Optional.encode(to:)` does too.
    @inline(__always)
    private static func mayBeCollection<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size == MemoryLayout<[StoredValue]>.size
    }

    /// The native value of `native`, or the error naming where it is for one that has none.
    func nativeValue(_ native: some StoredNativeCodable, key: () -> (any CodingKey)?) throws -> StoredValue {
        guard let value = native.nativeStoredValue else {
            throw StoreError.unrepresentable(
                key: StoredCodingPath.string(codingPath, appending: key()),
                reason: "\(native) does not fit in 64 bits; store it as a string"
            )
        }
        return value
    }

    /// The native value of a scalar whose kind was derived from `T.self`.
    // Safety: `unsafeBitCast` below only ever converts `T` to itself, since `kind` names `T`.
    @inline(__always)
    func scalarValue<T>(_ kind: StoredScalarKind, _ value: T, key: () -> (any CodingKey)?) throws -> StoredValue {
        switch kind {
        case .string: return .string(unsafeBitCast(value, to: String.self))
        case .int: return .int(Int64(unsafeBitCast(value, to: Int.self)))
        case .bool: return .bool(unsafeBitCast(value, to: Bool.self))
        case .double: return .double(unsafeBitCast(value, to: Double.self))
        case .float: return .double(Double(unsafeBitCast(value, to: Float.self)))
        case .date:
            facts.mayHoldDates = true
            return .date(unsafeBitCast(value, to: Date.self))
        case .data: return .data(unsafeBitCast(value, to: Data.self))
        case .url: return .string(unsafeBitCast(value, to: URL.self).absoluteString)
        case .int8: return .int(Int64(unsafeBitCast(value, to: Int8.self)))
        case .int16: return .int(Int64(unsafeBitCast(value, to: Int16.self)))
        case .int32: return .int(Int64(unsafeBitCast(value, to: Int32.self)))
        case .int64: return .int(unsafeBitCast(value, to: Int64.self))
        case .uint: return StoredValue(UInt64(unsafeBitCast(value, to: UInt.self)))
        case .uint8: return .int(Int64(unsafeBitCast(value, to: UInt8.self)))
        case .uint16: return .int(Int64(unsafeBitCast(value, to: UInt16.self)))
        case .uint32: return .int(Int64(unsafeBitCast(value, to: UInt32.self)))
        case .uint64: return StoredValue(unsafeBitCast(value, to: UInt64.self))
        case .int128, .uint128:
            // Only made where these types exist (see StoredScalarKind.lessCommonWide).
            if #available(macOS 15.0, *), kind == .int128 {
                return try nativeValue(unsafeBitCast(value, to: Int128.self), key: key)
            } else if #available(macOS 15.0, *) {
                return try nativeValue(unsafeBitCast(value, to: UInt128.self), key: key)
            } else {
                throw StoreError.unrepresentable(
                    key: StoredCodingPath.string(codingPath, appending: key()),
                    reason: "\(T.self) is not available on this system"
                )
            }
        }
    }

    /// The error for `nil` as element `key` of the collection being encoded.
    func nilInArray(at key: StoredIndexKey) -> StoreError {
        .unrepresentable(key: StoredCodingPath.string(codingPath, appending: key), reason: Self.nilInArrayReason)
    }
}

/// `[E]`, `Set<E>` and `[String: V]`, encoded by iterating them instead of through their
/// `encode(to:)`, which would make a container, a coding key and a frame per element.
protocol DirectlyEncodable {
    /// The encoded collection; the session's path already ends at the collection.
    func encodeDirectly(in session: EncodingSession) throws -> StoredValue
}

extension DirectlyEncodable {
    /// ``encodeDirectly(in:)`` of `value`, whose type `T` is `Self` (found by a cast of `T.self`).
    static func encodeDirectly<T>(_ value: T, in session: EncodingSession) throws -> StoredValue {
        try unsafeBitCast(value, to: Self.self).encodeDirectly(in: session)
    }
}

/// Whether a type is ``DirectlyEncodable`` (`type`, or `nil` for no), by the type's identity.
struct DirectType {
    let id: ObjectIdentifier
    let type: (any DirectlyEncodable.Type)?
}

extension Array: DirectlyEncodable where Element: Encodable {
    func encodeDirectly(in session: EncodingSession) throws -> StoredValue {
        try session.checkContainerDepth()
        if Element.self == String.self {
            return .array(unsafeBitCast(self, to: [String].self).map { .string($0) })
        }
        var values: [StoredValue] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            let key = StoredIndexKey(index: index)
            guard let value = try session.box(self[index], key: key) else { throw session.nilInArray(at: key) }
            values.append(value)
        }
        return .array(values)
    }
}

/// A set is stored as an array in a canonical order (``StoredValue/canonicallySorted(_:)``, as
/// ``Set/storedValue`` does), not in its own: that depends on the set's history and on the
/// process's hash seed, and an equal set written again, or from another process, must not count
/// as a change (nor rewrite the file).
extension Set: DirectlyEncodable where Element: Encodable {
    func encodeDirectly(in session: EncodingSession) throws -> StoredValue {
        try session.checkContainerDepth()
        var values: [StoredValue] = []
        values.reserveCapacity(count)
        for (offset, element) in enumerated() {
            let key = StoredIndexKey(index: offset)
            guard let value = try session.box(element, key: key) else { throw session.nilInArray(at: key) }
            values.append(value)
        }
        return .array(StoredValue.canonicallySorted(values))
    }
}

extension Dictionary: DirectlyEncodable where Key == String, Value: Encodable {
    func encodeDirectly(in session: EncodingSession) throws -> StoredValue {
        try session.checkContainerDepth()
        // `mapValues` keeps the hash table as it is (no rehashing). It visits the entries in the
        // dictionary's own order, so walking `keys` alongside names each entry.
        let keys = self.keys
        var keyIndex = keys.startIndex
        var omitted: [String] = []
        var result = try mapValues { value -> StoredValue in
            let key = keys[keyIndex]
            keys.formIndex(after: &keyIndex)
            if let stored = try session.box(value, key: StoredStringKey(key)) {
                return stored
            }
            // A nil value is left out, as a keyed container leaves out `encodeNil`.
            omitted.append(key)
            return .bool(false)
        }
        for key in omitted {
            result[key] = nil
        }
        return .dictionary(result)
    }
}
