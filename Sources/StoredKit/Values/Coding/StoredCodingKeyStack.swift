/// The keys of the values a decoder has entered, pushed and popped once per nested value.
///
/// An array would do the same with a uniqueness check, a capacity check and an outlined copy
/// per push and pop; with twenty-odd keys pushed per decoded struct, that was a tenth of
/// decoding time. This keeps its own storage and only ever grows it.
///
/// ```swift
/// var keys = StoredCodingKeyStack()
/// keys.push(StoredIndexKey(index: 2))
/// keys.path.count  //=> 1
/// keys.pop()
/// ```
struct StoredCodingKeyStack: ~Copyable {
    private var storage: UnsafeMutablePointer<any CodingKey>
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 8
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// The keys, outermost first.
    var path: [any CodingKey] {
        Array(UnsafeBufferPointer(start: storage, count: count))
    }

    @inline(__always)
    mutating func push(_ key: some CodingKey) {
        if count == capacity { grow() }
        (storage + count).initialize(to: key)
        count += 1
    }

    /// Removes the innermost key; there must be one.
    @inline(__always)
    mutating func pop() {
        count -= 1
        (storage + count).deinitialize(count: 1)
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<any CodingKey>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity *= 2
    }
}
