extension StoredValue {
    /// The deepest nesting of arrays and dictionaries StoredKit stores, reads or writes: one
    /// limit for ``StoredValueJSON``, both plist formats, SQLite and PostgreSQL, and `stored`.
    ///
    /// The one rule, the same in every reader and writer: a scalar is at depth 0 and each array or
    /// dictionary around it adds one, an empty one as any other, so `.array([.array([])])` is 2
    /// deep. A store's root (the dictionary of keys at the top of a plist file, or of the JSON
    /// `stored export` writes) is not part of any value: such a file or document nests one level
    /// more, ``PlistCodec/maximumDepth`` (513) with the root counted. 512 is the depth Foundation's
    /// `JSONSerialization` reads.
    /// Every walk over a value, in every reader and writer, keeps its own stack of open containers
    /// rather than recursing, so the limit does not depend on the thread's stack size. A deeper
    /// value is refused where it comes in: `set` reports ``StoreEvent/encodingFailed(key:reason:)``
    /// and keeps the earlier value, a transaction or migration throws, a JSON text holding one does
    /// not parse, and a file holding one is valid but unsupported (left in place, never moved aside).
    ///
    /// Codable types nest at most ``maximumCodableDepth``: their own `encode(to:)` and
    /// `init(from:)` recurse on the thread's stack.
    ///
    /// ```swift
    /// StoredValue.maximumDepth  //=> 512
    /// var deep = StoredValue.int(0)
    /// for _ in 0..<600 { deep = .array([deep]) }
    /// store.set(deep, forKey: "deep")  // reported: nested deeper than 512 levels; not stored
    /// ```
    public static let maximumDepth = 512

    /// The deepest nesting ``StoredValueEncoder`` writes and ``StoredValueDecoder`` reads into a
    /// Codable type. A type's `encode(to:)` and `init(from:)` call those of its properties on the
    /// thread's stack, so this limit keeps them within the 512 KiB stacks of Dispatch and Swift
    /// concurrency threads in debug builds. A deeper stored value is still stored and read as a
    /// ``StoredValue``; decoding it into a Codable type fails with
    /// ``StoreError/typeMismatch(key:expected:found:)`` and leaves the stored data as it is.
    ///
    /// ```swift
    /// StoredValue.maximumCodableDepth  //=> 128
    /// ```
    public static let maximumCodableDepth = 128

    /// How deep `==` and `hash(into:)` recurse before they go on with a work list (equality) or
    /// stop (hashing): a constant number of frames, whatever the value.
    static let recursionLimit = 32

    /// How every refusal of a value deeper than ``maximumDepth`` says so, whichever reader or
    /// writer refuses it (a `set`, JSON, a plist file, an SQLite or PostgreSQL row, `stored`).
    package static let tooDeepPhrase =
        "nested deeper than \(maximumDepth) levels of arrays and dictionaries (StoredValue.maximumDepth)"

    /// Why a value is deeper than ``maximumDepth``, as error messages say it.
    package static let tooDeepReason =
        "it is \(tooDeepPhrase); flatten it or store its parts under separate keys"

    /// Why a Codable value is deeper than ``maximumCodableDepth``, as error messages say it.
    package static let tooDeepForCodableReason =
        "it is nested deeper than \(maximumCodableDepth) levels of arrays and dictionaries "
        + "(StoredValue.maximumCodableDepth, the limit for Codable types); "
        + "flatten the type, or store a StoredValue, which may nest \(maximumDepth) levels"

    /// Whether this value nests containers deeper than `limit`. A walk with a work list of its
    /// own, which stops at the limit: no recursion, whatever the value.
    ///
    /// ```swift
    /// StoredValue.array([.array([])]).isNested(deeperThan: 1)  //=> true
    /// ```
    package func isNested(deeperThan limit: Int = maximumDepth) -> Bool {
        guard isContainer else { return false }
        // Each pending container with the depth it is at (1 for this value).
        var pending: [(value: StoredValue, depth: Int)] = [(self, 1)]
        while let (value, depth) = pending.popLast() {
            guard depth <= limit else { return true }
            switch value {
            case .array(let elements):
                for element in elements where element.isContainer { pending.append((element, depth + 1)) }
            case .dictionary(let entries):
                for entry in entries.values where entry.isContainer { pending.append((entry, depth + 1)) }
            default:
                break
            }
        }
        return false
    }

    /// Throws ``StoreError/unrepresentable(key:reason:)`` naming `key` when this value is nested
    /// deeper than ``maximumDepth``.
    ///
    /// ```swift
    /// try StoredValue.int(1).checkNesting(forKey: "a")  // fine
    /// ```
    func checkNesting(forKey key: String) throws(StoreError) {
        if isNested(deeperThan: Self.maximumDepth) {
            throw StoreError.unrepresentable(key: key, reason: Self.tooDeepReason)
        }
    }
}
