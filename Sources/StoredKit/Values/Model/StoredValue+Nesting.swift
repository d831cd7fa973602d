extension StoredValue {
    /// The deepest nesting of arrays and dictionaries StoredKit stores, reads or writes: one
    /// limit for the encoder and decoder, ``StoredValueJSON``, both plist formats and SQLite.
    ///
    /// A scalar is at depth 0 and each array or dictionary around it adds one, so
    /// `.array([.array([])])` is 2 deep. A deeper value is refused where it comes in: `set`
    /// reports ``StoreEvent/encodingFailed(key:reason:)`` and keeps the earlier value, a
    /// transaction or migration throws, a file or JSON text holding one does not parse. Every
    /// layer walks values recursively, so the limit keeps each walk a few hundred frames deep,
    /// which fits the 512 KiB stacks of Dispatch and Swift concurrency threads in debug builds.
    ///
    /// ```swift
    /// StoredValue.maximumDepth  //=> 128
    /// var deep = StoredValue.int(0)
    /// for _ in 0..<200 { deep = .array([deep]) }
    /// store.set(deep, forKey: "deep")  // reported: nested deeper than 128 levels; not stored
    /// ```
    public static let maximumDepth = 128

    /// Why a value is deeper than ``maximumDepth``, as error messages say it.
    package static let tooDeepReason =
        "it is nested deeper than \(maximumDepth) levels of arrays and dictionaries (StoredValue.maximumDepth); "
        + "flatten it or store its parts under separate keys"

    /// Whether this value nests containers deeper than `limit`. The walk stops at the limit, so
    /// its own recursion is at most `limit` frames deep whatever the value.
    ///
    /// ```swift
    /// StoredValue.array([.array([])]).isNested(deeperThan: 1)  //=> true
    /// ```
    package func isNested(deeperThan limit: Int = maximumDepth) -> Bool {
        switch self {
        case .array(let elements):
            guard limit > 0 else { return true }
            for element in elements where element.isContainer && element.isNested(deeperThan: limit - 1) {
                return true
            }
            return false
        case .dictionary(let entries):
            guard limit > 0 else { return true }
            for entry in entries.values where entry.isContainer && entry.isNested(deeperThan: limit - 1) {
                return true
            }
            return false
        default:
            return false
        }
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
