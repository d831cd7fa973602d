/// What the encoder saw while it built a value, so that admitting the write to a store need not
/// walk the value again to find it out.
///
/// A Codable `set` used to walk the whole encoded tree twice more before it was accepted: once
/// for the nesting limit (which the encoder had already enforced) and, on an XML plist store,
/// once for dates the XML form cannot hold. The encoder knows both answers for free.
///
/// ```swift
/// let encoded = try EncodingSession.encodeWithFacts(["volume": 0.5])
/// encoded.facts.nestingChecked  //=> true
/// encoded.facts.mayHoldDates    //=> false
/// ```
struct EncodingFacts: Equatable, Sendable {
    /// Every container in the value went through the encoder's nesting check: no raw
    /// ``StoredValue`` (which may be nested to any depth) was placed in it as it was.
    var nestingChecked: Bool
    /// The value may hold a date: the encoder wrote one, or placed a raw ``StoredValue``.
    var mayHoldDates: Bool

    /// Nothing is known: a value built by hand, or changed after it was encoded.
    static let unknown = EncodingFacts(nestingChecked: false, mayHoldDates: true)

    /// What an encoding that has written nothing yet knows.
    static let nothingWritten = EncodingFacts(nestingChecked: true, mayHoldDates: false)

    /// The facts of a value that holds both this value's parts and `other`'s.
    mutating func absorb(_ other: EncodingFacts) {
        nestingChecked = nestingChecked && other.nestingChecked
        mayHoldDates = mayHoldDates || other.mayHoldDates
    }
}

/// An encoded value and what the encoder saw while building it.
///
/// ```swift
/// let encoded = try EncodingSession.encodeWithFacts(Date.now)
/// encoded.value.typeName       //=> "date"
/// encoded.facts.mayHoldDates   //=> true
/// ```
struct EncodedValue: Sendable {
    let value: StoredValue
    let facts: EncodingFacts
}
