/// How one key's values turn into ``StoredValue``s and back, chosen once when the key is made.
///
/// `Storable` types convert directly, other `Codable` types go through
/// ``StoredValueEncoder``/``StoredValueDecoder``, and `RawRepresentable` types are stored by
/// their raw value (also when they are `Codable`, so the stored form never depends on how a
/// Codable conformance happens to be written). `Optional.none` means "no stored value".
struct StoredCoder<Value: Sendable>: Sendable {
    /// Returns `nil` for a value that means "remove the key" (`Optional.none`).
    let encode: @Sendable (Value) throws -> StoredValue?
    let decode: @Sendable (StoredValue) throws -> Value
    /// `encode` with what the encoder saw, when it is the Codable encoder's alone (not wrapped in
    /// an envelope): a store then admits the value without walking it again.
    var encodeWithFacts: (@Sendable (Value) throws -> EncodedValue?)? = nil
    /// The type's name, for diagnostics; computed only when needed (it costs far more than a read).
    var typeName: String { String(describing: Value.self) }
}

/// Lets the coder recognise `Optional.none` without knowing the wrapped type.
protocol OptionalValue {
    var isNone: Bool { get }
}

extension Optional: OptionalValue {
    var isNone: Bool { self == nil }
}

extension StoredCoder where Value: Codable {
    /// The coder for any Codable type, using the direct `Storable` conversion when there is one.
    static func codable() -> StoredCoder {
        if let storable = Value.self as? any Storable.Type, let coder = direct(storable) as? StoredCoder {
            return coder
        }
        if let versioned = versionedIfAvailable() { return versioned }
        let isOptional = Value.self is any OptionalValue.Type
        let encodeWithFacts: @Sendable (Value) throws -> EncodedValue? = { value in
            if isOptional, let optional = value as? any OptionalValue, optional.isNone { return nil }
            return try EncodingSession.encodeWithFacts(value)
        }
        return StoredCoder(
            encode: { try encodeWithFacts($0)?.value },
            decode: { stored in try StoredValueDecoder().decode(Value.self, from: stored) },
            encodeWithFacts: encodeWithFacts
        )
    }

    /// Returned as `Any` so it can be called with an opened `any Storable.Type`.
    private static func direct<S: Storable>(_ type: S.Type) -> Any {
        StoredCoder<S>(
            encode: { $0.storedValue },
            decode: { try S(storedValue: $0) }
        )
    }
}

extension StoredCoder where Value: RawRepresentable, Value.RawValue: Codable & Sendable {
    /// Stores the raw value; a raw value the type does not accept reads as a type mismatch.
    static func rawValue() -> StoredCoder {
        let raw = StoredCoder<Value.RawValue>.codable()
        return StoredCoder(
            encode: { try raw.encode($0.rawValue) },
            decode: { stored in
                guard let value = Value(rawValue: try raw.decode(stored)) else {
                    throw StoreError.typeMismatch(key: "", expected: "\(Value.self)", found: "\(stored) (no such case)")
                }
                return value
            }
        )
    }
}

extension StoredCoder {
    /// `Optional` of a raw-value type: `nil` removes the key, anything else is stored by raw value.
    static func optionalRawValue<Wrapped>() -> StoredCoder
    where Value == Wrapped?, Wrapped: RawRepresentable & Sendable, Wrapped.RawValue: Codable & Sendable {
        let wrapped = StoredCoder<Wrapped>.rawValue()
        return StoredCoder(
            encode: { value in try value.flatMap(wrapped.encode) },
            decode: { try wrapped.decode($0) }
        )
    }
}
