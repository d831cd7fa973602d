/// The keyed writes of every open frame of an ``EncodingSession``, innermost last.
///
/// An array did the same with a uniqueness check and a capacity check on every append, and one
/// `removeLast()` per entry when its frame closed (a range removal goes through the general
/// replacement of a subrange, which was slower still): about a tenth of encoding a 20-tab sidebar,
/// for its ~95 keys. This keeps its own storage, as ``StoredCodingKeyStack`` does for the path,
/// only ever grows it, and drops a closing frame's entries in one call. Indices are the session's
/// own (a frame's base, a pending slot), so they are not checked.
///
/// ```swift
/// var entries = EncodingEntryBuffer()
/// entries.append(EncodingSession.Entry(key: "volume", value: .double(0.5)))
/// entries[0].key  //=> "volume"
/// entries.removeAll(from: 0)
/// ```
struct EncodingEntryBuffer: ~Copyable {
    private var storage: UnsafeMutablePointer<EncodingSession.Entry>
    private(set) var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 16
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    @inline(__always)
    mutating func append(_ entry: consuming EncodingSession.Entry) {
        if count == capacity { grow() }
        (storage + count).initialize(to: entry)
        count += 1
    }

    /// The entry at `index`, which must be below ``count``.
    @inline(__always)
    subscript(index: Int) -> EncodingSession.Entry {
        unsafeAddress { UnsafePointer(storage + index) }
        nonmutating unsafeMutableAddress { storage + index }
    }

    /// Removes the entries from `start` on (a closing frame's).
    @inline(__always)
    mutating func removeAll(from start: Int) {
        guard count > start else { return }
        (storage + start).deinitialize(count: count - start)
        count = start
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<EncodingSession.Entry>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity *= 2
    }
}
