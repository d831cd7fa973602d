import Foundation

// Performance note: this code runs unspecialized (`T` is only known at run time), where every
// use of a type built from `T` (such as `T?`) costs a runtime metadata lookup. The fast paths
// therefore never form `Optional<T>`: a non-generic check picks the path first, and the
// generic step after it returns a plain `T`.

extension DecodingSession {
    /// Decodes one nested value, through a fast path when there is one, otherwise through its
    /// own `init(from:)` with this decoder entered into the value. `key` is generic so that the
    /// fast paths never box it into an existential.
    @inline(__always)
    func unbox<T: Decodable, Key: CodingKey>(_ value: StoredValue, as type: T.Type, key: Key) throws -> T {
        switch value {
        case .dictionary(let entries):
            return try entering(value, key: key) {
                if Self.mayBeCollection(T.self), let dictionaryType = T.self as? any StoredDirectDictionary.Type {
                    return try decode(entries, as: dictionaryType, result: type)
                }
                return try decodeThroughConformance(value, as: type)
            }
        case .array(let elements):
            if Self.mayBeCollection(T.self), let arrayType = T.self as? any StoredDirectArray.Type {
                return try entering(value, key: key) { try decode(elements, as: arrayType, result: type) }
            }
        default:
            if let scalar = StoredScalarKind(T.self) {
                return try decodeScalar(scalar, from: value, as: type, key: { key })
            }
        }
        return try entering(value, key: key) { try decodeThroughConformance(value, as: type) }
    }

    /// The same choice as ``unbox(_:as:key:)`` for the value this decoder itself holds
    /// (the top level, or a single-value container).
    func decodeHere<T: Decodable>(_ value: StoredValue, as type: T.Type) throws -> T {
        switch value {
        case .dictionary(let entries):
            if Self.mayBeCollection(T.self), let dictionaryType = T.self as? any StoredDirectDictionary.Type {
                return try decode(entries, as: dictionaryType, result: type)
            }
        case .array(let elements):
            if Self.mayBeCollection(T.self), let arrayType = T.self as? any StoredDirectArray.Type {
                return try decode(elements, as: arrayType, result: type)
            }
        default:
            if let scalar = StoredScalarKind(T.self) {
                return try decodeScalar(scalar, from: value, as: type, key: { nil })
            }
        }
        return try decodeThroughConformance(value, as: type)
    }

    /// A conformance check costs a runtime cache lookup; `Array` and `Dictionary` are a single
    /// pointer wide, which rules out most structs (reading the size is nearly free).
    @inline(__always)
    private static func mayBeCollection<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size == MemoryLayout<[StoredValue]>.size
    }

    /// `T(from: self)`. A `DecodingError` the type throws itself stays one (a caller's own
    /// `init(from:)` may catch it) but carries the `StoreError` that names `T` and the value.
    private func decodeThroughConformance<T: Decodable>(_ value: StoredValue, as type: T.Type) throws -> T {
        if value.isContainer, T.self == Date.self || T.self == Data.self || T.self == URL.self {
            // Their own conformances would read the container and report a confusing error;
            // a container is simply the wrong shape for them.
            throw mismatch(value, expected: String(describing: T.self), type: T.self, key: nil)
        }
        do {
            return try T(from: self)
        } catch let error as DecodingError where error.storeError == nil {
            throw error.carrying(Self.storeError(from: error, decoding: value, as: type))
        }
    }

    private func decode<Direct: StoredDirectDictionary, T>(
        _ entries: [String: StoredValue],
        as direct: Direct.Type,
        result: T.Type
    ) throws -> T {
        Self.same(try Direct.decodeDirectly(from: entries, decoder: self), as: T.self)
    }

    private func decode<Direct: StoredDirectArray, T>(
        _ elements: [StoredValue],
        as direct: Direct.Type,
        result: T.Type
    ) throws -> T {
        Self.same(try Direct.decodeDirectly(from: elements, decoder: self), as: T.self)
    }

    /// `value` as the type it already is, `T`, which only the caller knows (it compared the two
    /// metatypes). A checked cast would ask the runtime to compare them again, on a path taken
    /// for every string in an array.
    @inline(__always)
    private static func same<Known, T>(_ value: Known, as type: T.Type) -> T {
        unsafeBitCast(value, to: T.self)  // trap-ok: Known is T (the caller matched the metatypes)
    }

    /// `kind` was derived from `T.self`, so every result below is a `T` already.
    @inline(__always)
    private func decodeScalar<T>(
        _ kind: StoredScalarKind,
        from value: StoredValue,
        as type: T.Type,
        key: () -> (any CodingKey)?
    ) throws -> T {
        switch kind {
        case .string: Self.same(try native(value, as: String.self, key: key), as: T.self)
        case .int: Self.same(try native(value, as: Int.self, key: key), as: T.self)
        case .bool: Self.same(try native(value, as: Bool.self, key: key), as: T.self)
        case .double: Self.same(try native(value, as: Double.self, key: key), as: T.self)
        case .float: Self.same(try native(value, as: Float.self, key: key), as: T.self)
        case .date: Self.same(try native(value, as: Date.self, key: key), as: T.self)
        case .data: Self.same(try native(value, as: Data.self, key: key), as: T.self)
        case .url: Self.same(try native(value, as: URL.self, key: key), as: T.self)
        case .int8: Self.same(try native(value, as: Int8.self, key: key), as: T.self)
        case .int16: Self.same(try native(value, as: Int16.self, key: key), as: T.self)
        case .int32: Self.same(try native(value, as: Int32.self, key: key), as: T.self)
        case .int64: Self.same(try native(value, as: Int64.self, key: key), as: T.self)
        case .uint: Self.same(try native(value, as: UInt.self, key: key), as: T.self)
        case .uint8: Self.same(try native(value, as: UInt8.self, key: key), as: T.self)
        case .uint16: Self.same(try native(value, as: UInt16.self, key: key), as: T.self)
        case .uint32: Self.same(try native(value, as: UInt32.self, key: key), as: T.self)
        case .uint64: Self.same(try native(value, as: UInt64.self, key: key), as: T.self)
        case .int128, .uint128:
            // Only made where these types exist (see StoredScalarKind.lessCommonWide).
            if #available(macOS 15.0, *), kind == .int128 {
                Self.same(try native(value, as: Int128.self, key: key), as: T.self)
            } else if #available(macOS 15.0, *) {
                Self.same(try native(value, as: UInt128.self, key: key), as: T.self)
            } else {
                throw mismatch(value, expected: String(describing: T.self), type: T.self, key: key())
            }
        }
    }
}

extension StoredValue {
    /// Whether this is an array or a dictionary.
    var isContainer: Bool {
        switch self {
        case .array, .dictionary: true
        default: false
        }
    }
}

/// The scalar types with a native ``StoredValue`` case, recognised by comparing metatypes.
enum StoredScalarKind {
    case string, int, bool, double, float, date, data, url
    case int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, int128, uint128

    /// Most frequent types first: the whole chain runs for every struct, enum and collection.
    @inline(__always)
    init?(_ type: Any.Type) {
        let id = ObjectIdentifier(type)
        if id == ObjectIdentifier(String.self) {
            self = .string
        } else if id == ObjectIdentifier(Int.self) {
            self = .int
        } else if id == ObjectIdentifier(Bool.self) {
            self = .bool
        } else if id == ObjectIdentifier(Double.self) {
            self = .double
        } else if id == ObjectIdentifier(Date.self) {
            self = .date
        } else if id == ObjectIdentifier(Data.self) {
            self = .data
        } else if id == ObjectIdentifier(URL.self) {
            self = .url
        } else if let kind = Self.lessCommon(id) {
            self = kind
        } else {
            return nil
        }
    }

    private static func lessCommon(_ id: ObjectIdentifier) -> StoredScalarKind? {
        switch id {
        case ObjectIdentifier(Float.self): .float
        case ObjectIdentifier(Int8.self): .int8
        case ObjectIdentifier(Int16.self): .int16
        case ObjectIdentifier(Int32.self): .int32
        case ObjectIdentifier(Int64.self): .int64
        case ObjectIdentifier(UInt.self): .uint
        case ObjectIdentifier(UInt8.self): .uint8
        case ObjectIdentifier(UInt16.self): .uint16
        case ObjectIdentifier(UInt32.self): .uint32
        case ObjectIdentifier(UInt64.self): .uint64
        default: lessCommonWide(id)
        }
    }

    private static func lessCommonWide(_ id: ObjectIdentifier) -> StoredScalarKind? {
        guard #available(macOS 15.0, *) else { return nil }
        switch id {
        case ObjectIdentifier(Int128.self): return .int128
        case ObjectIdentifier(UInt128.self): return .uint128
        default: return nil
        }
    }
}

/// `[String: V]`, decoded by iterating the stored dictionary.
protocol StoredDirectDictionary {
    static func decodeDirectly(from entries: [String: StoredValue], decoder: DecodingSession) throws -> Self
}

extension Dictionary: StoredDirectDictionary where Key == String, Value: Decodable {
    static func decodeDirectly(from entries: [String: StoredValue], decoder: DecodingSession) throws -> Self {
        // `mapValues` keeps the hash table as it is (no rehashing) and, unlike the subscript
        // setter, needs no run-time metadata for `Value?` per entry. It visits the entries in
        // the dictionary's own order, so walking `keys` alongside names each entry.
        let keys = entries.keys
        var keyIndex = keys.startIndex
        return try entries.mapValues { value in
            let key = keys[keyIndex]
            keys.formIndex(after: &keyIndex)
            return try decoder.unbox(value, as: Value.self, key: StoredStringKey(key))
        }
    }
}

/// `[E]`, decoded by iterating the stored array.
protocol StoredDirectArray {
    static func decodeDirectly(from elements: [StoredValue], decoder: DecodingSession) throws -> Self
}

extension Array: StoredDirectArray where Element: Decodable {
    static func decodeDirectly(from elements: [StoredValue], decoder: DecodingSession) throws -> Self {
        var result = Self()
        result.reserveCapacity(elements.count)
        for index in elements.indices {
            result.append(try decoder.unbox(elements[index], as: Element.self, key: StoredIndexKey(index: index)))
        }
        return result
    }
}
