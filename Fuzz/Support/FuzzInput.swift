import StoredKitTestSupport

/// libFuzzer's input read as a stream of choices, shared by the fuzz targets: `byte()` gives its
/// bytes in order, then zeros; `next()` (a `RandomNumberGenerator`, so it drives the generators
/// the tests use, such as ``GeneratedRecord/make(_:depth:)``) gives eight bytes at a time, the
/// first the most significant, then a ``SeededGenerator`` seeded with the input's length. A short
/// input still makes a whole value that way: all zeros would mean "refuse" to the generators.
///
/// ```swift
/// var input = FuzzInput(start, count: 2)  // the bytes 0x01 0x02
/// input.byte()  //=> 1
/// input.byte()  //=> 2
/// input.byte()  //=> 0
/// ```
struct FuzzInput: RandomNumberGenerator {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var tail: SeededGenerator

    init(_ start: UnsafePointer<UInt8>?, count: Int) {
        bytes = UnsafeBufferPointer(start: start, count: start == nil ? 0 : count)
        tail = SeededGenerator(seed: UInt64(bytes.count))
    }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func next() -> UInt64 {
        guard index < bytes.count else { return tail.next() }
        return (0..<8).reduce(UInt64(0)) { value, _ in value << 8 | UInt64(byte()) }
    }
}
