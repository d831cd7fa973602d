/// A coding session's stack of elements: the keys of the values it has entered
/// (``StoredCodingKeyStack``), and the encoder's keyed writes of every open frame
/// (``EncodingEntryBuffer``).
///
/// An array did the same with a uniqueness check and a capacity check on every append, an
/// outlined copy per push and pop, and one `removeLast()` per element when a frame closed (a
/// range removal goes through the general replacement of a subrange, which was slower still):
/// a tenth of decoding time for the keys, and about a tenth of encoding a 20-tab sidebar for its
/// ~95 keyed writes. This keeps its own storage, only ever grows it, and drops a closing frame's
/// elements in one call. Indices are the session's own (a frame's base, a pending slot), so they
/// are not checked.
///
/// ```swift
/// var entries = EncodingEntryBuffer()
/// entries.append(EncodingSession.Entry(key: "volume", value: .double(0.5)))
/// entries[0].key  //=> "volume"
/// entries.removeAll(from: 0)
/// ```
struct SessionBuffer<Element>: ~Copyable {
    private var storage: UnsafeMutablePointer<Element>
    private(set) var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 8
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    @inline(__always)
    mutating func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (storage + count).initialize(to: element)
        count += 1
    }

    /// The element at `index`, which must be below ``count``.
    @inline(__always)
    subscript(index: Int) -> Element {
        unsafeAddress { UnsafePointer(storage + index) }
        nonmutating unsafeMutableAddress { storage + index }
    }

    /// Removes the last element; there must be one.
    @inline(__always)
    mutating func removeLast() {
        count -= 1
        (storage + count).deinitialize(count: 1)
    }

    /// Removes the elements from `start` on (a closing frame's).
    @inline(__always)
    mutating func removeAll(from start: Int) {
        guard count > start else { return }
        (storage + start).deinitialize(count: count - start)
        count = start
    }

    /// The elements, first to last.
    var elements: [Element] {
        Array(UnsafeBufferPointer(start: storage, count: count))
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity *= 2
    }
}

/// The encoder's keyed writes of every open frame, innermost last.
typealias EncodingEntryBuffer = SessionBuffer<EncodingSession.Entry>

/// The keys of the values a session has entered, pushed and popped once per nested value.
///
/// ```swift
/// var keys = StoredCodingKeyStack()
/// keys.push(StoredIndexKey(index: 2))
/// keys.path.count  //=> 1
/// keys.pop()
/// ```
typealias StoredCodingKeyStack = SessionBuffer<any CodingKey>

extension SessionBuffer where Element == any CodingKey {
    /// Enters the value at `key`. (Not `append(_:)`: that would box the key into a temporary
    /// existential first, and copy it again into the stack.)
    @inline(__always)
    mutating func push(_ key: some CodingKey) {
        if count == capacity { grow() }
        (storage + count).initialize(to: key)
        count += 1
    }

    /// Leaves the innermost value; there must be one.
    @inline(__always)
    mutating func pop() { removeLast() }

    /// The keys, outermost first.
    var path: [any CodingKey] { elements }
}
