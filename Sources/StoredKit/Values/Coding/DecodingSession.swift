import Foundation

/// The `Decoder` handed to `init(from:)`; it is also its own single-value container.
///
/// One instance decodes a whole tree. Entering a nested value swaps it in and leaving swaps
/// the outer value back, so a nested value costs no object (an object each was a third of
/// decoding time: allocating it, then releasing its fields). That is sound because decoding is
/// depth-first: a nested `init(from:)` has returned before its caller reads on, so the keyed
/// container a type made reads that type's dictionary whenever the type uses it. Decoders that
/// may be used out of that order (a nested container's, `superDecoder()`) are separate instances.
///
/// `@exclusivity(unchecked)`: the properties change on every nested value, and the run-time
/// access check each `var` of a class otherwise costs was several percent of decoding. No
/// access to them spans a call, and one decoding runs on one thread.
final class DecodingSession: Decoder, SingleValueDecodingContainer {
    /// `nil` when there is nothing to read: `superDecoder(forKey:)` for a key that is absent.
    @exclusivity(unchecked) private(set) var value: StoredValue?
    /// The keys from the decoder's own root to `value`.
    @exclusivity(unchecked) private var keys = StoredCodingKeyStack()
    /// The path to the decoder's own root (empty but for separate decoders).
    private let rootPath: [any CodingKey]
    /// How many values are above the decoder's own root (`rootPath.count`).
    private let rootDepth: Int
    /// The keyed containers made so far, one per key type, when ``reusesContainers``.
    @exclusivity(unchecked) private var keyedContainers: [MadeContainer] = []
    /// Whether a keyed container, once made, is handed out again for the same key type. A
    /// container only refers to this decoder and reads whichever value it is on, so one serves
    /// every value with those keys (the 20 tabs of a sidebar); making one costs two run-time
    /// type lookups and an object. Only a decoder whose owner calls ``finish()`` may.
    @exclusivity(unchecked) private var reusesContainers: Bool

    /// A decoder for `value`, found at `codingPath`.
    init(value: StoredValue?, codingPath: [any CodingKey] = [], reusesContainers: Bool = false) {
        self.value = value
        self.rootPath = codingPath
        rootDepth = codingPath.count
        self.reusesContainers = reusesContainers
        if reusesContainers { keyedContainers.reserveCapacity(4) }
    }

    /// The keys from the root to `value`.
    var codingPath: [any CodingKey] {
        rootPath + keys.path
    }

    /// The entries of `value` when it is a dictionary, else none.
    var dictionary: [String: StoredValue] {
        @inline(__always) get {
            if case .dictionary(let entries) = value { entries } else { [:] }
        }
    }

    /// Runs `body` with `value` (at `key`) as the value being decoded, then makes the current
    /// value current again, also when `body` throws. A container nested deeper than
    /// ``StoredValue/maximumCodableDepth`` is refused before it is entered, so a value built by hand
    /// cannot drive a recursive `init(from:)` into a stack overflow.
    @inline(__always)
    func entering<Result>(_ value: StoredValue, key: some CodingKey, _ body: () throws -> Result) throws -> Result {
        // The entered value is a child of the current one: a container there is this many levels deep.
        if rootDepth + keys.count + 2 > StoredValue.maximumCodableDepth, value.isContainer { throw tooDeep(key) }
        var outerValue: StoredValue? = value
        swap(&self.value, &outerValue)
        keys.push(key)
        defer {
            keys.pop()
            swap(&self.value, &outerValue)
        }
        return try body()
    }

    private func tooDeep(_ key: some CodingKey) -> StoreError {
        .typeMismatch(
            key: StoredCodingPath.abbreviated(codingPath + [key]),
            expected: "a value at most \(StoredValue.maximumCodableDepth) levels deep (StoredValue.maximumCodableDepth)",
            found: "deeper nesting")
    }

    /// A decoder of its own for the nested `value` at `key`, for callers that may use it after
    /// decoding has moved on (nested containers, `superDecoder`).
    func separate(for value: StoredValue?, key: some CodingKey) -> DecodingSession {
        DecodingSession(value: value, codingPath: codingPath + [key])
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary = value else {
            throw mismatch(value, expected: "dictionary", type: [String: Any].self, key: nil)
        }
        let keyType = ObjectIdentifier(Key.self)
        for index in keyedContainers.indices where keyedContainers[index].keyType == keyType {
            // Neither the box nor its hand-out is retained for the call: the session keeps both.
            let handOut = Unmanaged.passUnretained(keyedContainers[index].handOut)
            let box = Unmanaged.passUnretained(keyedContainers[index].box)
            return handOut._withUnsafeGuaranteedRef { handOut in
                box._withUnsafeGuaranteedRef { box in
                    // Unchecked: the hand-out was made for this key type.
                    unsafeDowncast(handOut, to: ContainerHandOut<KeyedDecodingContainer<Key>>.self).container(box)
                }
            }
        }
        let container = KeyedDecodingContainer(StoredKeyedDecodingContainer<Key>(decoder: self))
        if reusesContainers {
            keyedContainers.append(
                MadeContainer(
                    keyType: keyType, box: unsafeBitCast(container, to: AnyObject.self),
                    handOut: ContainerHandOut<KeyedDecodingContainer<Key>>.shared))
        }
        return container
    }

    /// Ends a decoding that reuses containers: they refer to this decoder, which refers to them.
    /// A decoder or container kept past this point then finds nothing to read (a clear error)
    /// instead of the root value, and makes no more containers to keep.
    func finish() {
        reusesContainers = false
        keyedContainers = []
        value = nil
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw mismatch(value, expected: "array", type: [Any].self, key: nil)
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
            throw mismatch(nil, expected: String(describing: Native.self), type: Native.self, key: key())
        }
        guard let decoded = Native.fromNative(value) else {
            throw mismatch(value, expected: Native.self, key: key())
        }
        return decoded
    }

    // MARK: Errors
    //
    // Inside a decoding every failure is a `DecodingError`, as from `JSONDecoder`, so that a
    // type's own `init(from:)` can catch it (an unknown raw value falling back to a default).
    // Each carries, as its underlying error, the `StoreError` that `StoredValueDecoder` throws
    // if nothing catches it.

    func mismatch<Native: StoredNativeCodable>(_ value: StoredValue, expected: Native.Type, key: (any CodingKey)?)
        -> DecodingError
    {
        failure(
            .typeMismatch(
                key: StoredCodingPath.string(codingPath, appending: key),
                expected: String(describing: expected),
                found: value.foundDescription(expectingNumber: Native.isNumber)),
            type: expected, found: value, key: key)
    }

    /// `expected` names what was wanted ("dictionary", a type's name); `type` is that type.
    func mismatch(_ value: StoredValue?, expected: String, type: Any.Type, key: (any CodingKey)?) -> DecodingError {
        failure(
            .typeMismatch(
                key: StoredCodingPath.string(codingPath, appending: key),
                expected: expected,
                found: value?.typeName ?? "nothing"),
            type: type, found: value, key: key)
    }

    /// The `DecodingError` JSONDecoder would throw for this failure, carrying `detail`: a missing
    /// key is `keyNotFound`, a missing element or value `valueNotFound`, anything else `typeMismatch`.
    private func failure(_ detail: StoreError, type: Any.Type, found value: StoredValue?, key: (any CodingKey)?) -> DecodingError
    {
        let description = String(describing: detail)
        guard value == nil else {
            let path = key.map { codingPath + [$0] } ?? codingPath
            return .typeMismatch(type, .init(codingPath: path, debugDescription: description, underlyingError: detail))
        }
        if let key, !(key is StoredIndexKey) {
            return .keyNotFound(key, .init(codingPath: codingPath, debugDescription: description, underlyingError: detail))
        }
        let path = key.map { codingPath + [$0] } ?? codingPath
        return .valueNotFound(type, .init(codingPath: path, debugDescription: description, underlyingError: detail))
    }

    /// What ``StoredValueDecoder`` throws for `error`: the `StoreError` it carries, or one made
    /// from a `DecodingError` a type's own `init(from:)` threw while decoding `value` as `T`
    /// (a raw value with no matching case, an enum payload of the wrong shape).
    static func storeError<T>(from error: DecodingError, decoding value: StoredValue, as type: T.Type) -> StoreError {
        if let detail = error.storeError { return detail }
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
        guard let value else { throw mismatch(nil, expected: String(describing: T.self), type: T.self, key: nil) }
        // The value decodes from this same decoder: a single-value wrapper adds no level.
        return try decodeHere(value, as: type)
    }
}

/// A keyed container kept for reuse and its key type. (A struct, not a tuple: the runtime builds
/// a tuple's type information on first use in each process and looks it up on every later one.)
///
/// `box` is the container itself, the one reference a `KeyedDecodingContainer` is, and `handOut`
/// the ``ContainerHandOut`` that turns it back into the container without a run-time type lookup.
private struct MadeContainer {
    let keyType: ObjectIdentifier
    let box: AnyObject
    let handOut: AnyObject
}

extension DecodingError {
    /// The `StoreError` a failure inside ``DecodingSession`` carries.
    var storeError: StoreError? {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            context.underlyingError as? StoreError
        @unknown default: nil
        }
    }

    /// The same error carrying `detail`, unless it already carries an underlying error.
    func carrying(_ detail: StoreError) -> DecodingError {
        func attach(_ context: Context) -> Context? {
            context.underlyingError == nil
                ? Context(codingPath: context.codingPath, debugDescription: context.debugDescription, underlyingError: detail)
                : nil
        }
        switch self {
        case .typeMismatch(let type, let context): return attach(context).map { .typeMismatch(type, $0) } ?? self
        case .valueNotFound(let type, let context): return attach(context).map { .valueNotFound(type, $0) } ?? self
        case .keyNotFound(let key, let context): return attach(context).map { .keyNotFound(key, $0) } ?? self
        case .dataCorrupted(let context): return attach(context).map { .dataCorrupted($0) } ?? self
        @unknown default: return self
        }
    }
}
