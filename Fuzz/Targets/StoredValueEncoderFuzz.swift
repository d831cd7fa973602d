import Foundation

@testable import StoredKit

// libFuzzer target: StoredValueEncoder. The input bytes choose a Codable value (which optional
// properties are set, to what, how many children), which is encoded, decoded back and compared:
// the decoded value must equal the generated one (where it holds no NaN, which equals nothing)
// and encode to the same tree again. A value the encoder refuses (an Int128 beyond 64 bits, nil
// in an array, nesting beyond the limit) must be refused with StoreError, never trap.

struct FuzzRecord: Codable, Equatable {
    enum Mode: String, Codable { case light, dark, system }
    enum Level: Int, Codable { case low = 1, high = 20 }
    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case square(Int8)
        case none
        case labelled(String, count: Int)
    }

    var count = 0
    var small: Int8?
    var wide: UInt64?
    var medium: Int32?
    var ratio: Float?
    var volume: Double?
    var enabled: Bool?
    var name: String?
    var blob: Data?
    var when: Date?
    var link: URL?
    var identifier: UUID?
    var mode: Mode?
    var level: Level?
    var shape: Shape?
    var list: [Int16]?
    var words: [String]?
    var holes: [Int?]?
    var tags: Set<String>?
    var moments: Set<Date>?
    var table: [String: Double]?
    /// Never holding nil: the encoder leaves a nil value out, so it would not decode back equal.
    var sparse: [String: Int?]?
    var numbered: [Int: String]?
    var grid: [[UInt8]]?
    var raw: StoredValue?
    var huge: Int128?
    var children: [FuzzRecord]?
    var byName: [String: FuzzRecord]?
}

/// Reads a value's choices from fuzz bytes; past the end every byte is 0.
struct FuzzChoices {
    var bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func word() -> UInt64 {
        (0..<8).reduce(UInt64(0)) { value, _ in value << 8 | UInt64(byte()) }
    }

    mutating func count(_ limit: UInt8) -> Int { Int(byte() % limit) }

    mutating func string() -> String {
        let length = count(12)
        return String(decoding: (0..<length).map { _ in byte() }, as: UTF8.self)
    }

    mutating func double() -> Double { Double(bitPattern: word()) }

    /// Whether to set the next optional property.
    mutating func set() -> Bool { byte() & 1 == 1 }

    mutating func raw(depth: Int) -> StoredValue {
        let tag = byte()
        switch depth > 3 ? tag % 7 : tag % 9 {
        case 0: return .bool(tag & 0x80 != 0)
        case 1: return .int(Int64(bitPattern: word()))
        case 2: return .uint(word())
        case 3: return .double(double())
        case 4: return .string(string())
        case 5: return .data(Data(string().utf8))
        case 6: return .date(Date(timeIntervalSinceReferenceDate: double()))
        case 7: return .array((0..<count(4)).map { _ in raw(depth: depth + 1) })
        default:
            var entries: [String: StoredValue] = [:]
            for _ in 0..<count(4) { entries[string()] = raw(depth: depth + 1) }
            return .dictionary(entries)
        }
    }

    mutating func record(depth: Int) -> FuzzRecord {
        var record = FuzzRecord(count: Int(truncatingIfNeeded: word()))
        if set() { record.small = Int8(truncatingIfNeeded: byte()) }
        if set() { record.wide = word() }
        if set() { record.medium = Int32(truncatingIfNeeded: word()) }
        if set() { record.ratio = byte() == 0 ? .nan : Float(Int16(truncatingIfNeeded: word())) / 8 }
        if set() { record.volume = double() }
        if set() { record.enabled = byte() & 2 != 0 }
        if set() { record.name = string() }
        if set() { record.blob = Data(string().utf8) }
        if set() { record.when = Date(timeIntervalSinceReferenceDate: Double(Int32(truncatingIfNeeded: word())) / 8) }
        if set() { record.link = URL(string: "https://example.com/p\(byte())?q=\(byte())") }
        if set() { record.identifier = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, byte(), byte())) }
        if set() { record.mode = [.light, .dark, .system][count(3)] }
        if set() { record.level = byte() & 1 == 0 ? .low : .high }
        if set() { record.shape = shape() }
        if set() { record.list = (0..<count(6)).map { _ in Int16(truncatingIfNeeded: word()) } }
        if set() { record.words = (0..<count(5)).map { _ in string() } }
        if set() { record.holes = (0..<count(4)).map { _ in byte() % 5 == 0 ? nil : Int(byte()) } }
        if set() { record.tags = Set((0..<count(6)).map { _ in string() }) }
        if set() { record.moments = Set((0..<count(5)).map { _ in Date(timeIntervalSinceReferenceDate: Double(byte()) / 16) }) }
        if set() { record.table = Dictionary((0..<count(5)).map { _ in (string(), double()) }, uniquingKeysWith: { a, _ in a }) }
        if set() {
            record.sparse = Dictionary(
                (0..<count(5)).map { _ in (string(), Int?.some(Int(byte()))) }, uniquingKeysWith: { a, _ in a })
        }
        if set() {
            record.numbered = Dictionary(
                (0..<count(4)).map { _ in (Int(Int8(truncatingIfNeeded: byte())), string()) }, uniquingKeysWith: { a, _ in a })
        }
        if set() { record.grid = (0..<count(3)).map { _ in (0..<count(3)).map { _ in byte() } } }
        if set() { record.raw = raw(depth: 0) }
        if set() { record.huge = byte() % 4 == 0 ? Int128(UInt64.max) + Int128(byte()) : Int128(Int64(bitPattern: word())) }
        if depth < 4, set() { record.children = (0..<count(3)).map { _ in self.record(depth: depth + 1) } }
        if depth < 4, set() { record.byName = [string(): self.record(depth: depth + 1)] }
        return record
    }

    mutating func shape() -> FuzzRecord.Shape {
        switch byte() % 4 {
        case 0: .circle(radius: double())
        case 1: .square(Int8(truncatingIfNeeded: byte()))
        case 2: .none
        default: .labelled(string(), count: Int(byte()))
        }
    }
}

/// A deeply nested value: `levels` arrays around a record, which must encode up to the nesting limit and be refused beyond.
func nested(_ record: FuzzRecord, levels: Int) -> StoredValue? {
    var value = try? StoredValueEncoder().encode([record])
    for _ in 0..<levels { value = value.map { .array([$0]) } }
    return value
}

extension StoredValue {
    /// Whether a NaN is anywhere in the tree (then the decoded value cannot equal the original).
    var containsNaN: Bool {
        switch self {
        case .double(let value): value.isNaN
        case .array(let values): values.contains { $0.containsNaN }
        case .dictionary(let values): values.values.contains { $0.containsNaN }
        default: false
        }
    }
}

func checkRoundTrip<T: Codable & Equatable>(_ value: T) {
    let encoded: StoredValue
    do {
        encoded = try StoredValueEncoder().encode(value)
    } catch is StoreError {
        return  // refused, as documented, with a typed error
    } catch {
        fatalError("\(T.self) failed to encode with a foreign error: \(error)")  // trap-ok: reports the finding to libFuzzer
    }
    do {
        let decoded = try StoredValueDecoder().decode(T.self, from: encoded)
        if !encoded.containsNaN, decoded != value {
            fatalError("\(T.self) decoded unequal from \(encoded)")  // trap-ok: reports the finding to libFuzzer
        }
        let again = try StoredValueEncoder().encode(decoded)
        if again != encoded {
            fatalError("\(T.self) encoded \(encoded), then \(again) after decoding")  // trap-ok: reports the finding to libFuzzer
        }
    } catch {
        fatalError("\(T.self) \(encoded) did not decode: \(error)")  // trap-ok: reports the finding to libFuzzer
    }
}

/// libFuzzer's entry point, called once per input; traps only on a finding.
///
/// ```sh
/// Fuzz/fuzz.sh run stored-value-encoder 60  # => fuzz stored-value-encoder: N executions in 60 s, corpus C inputs, 0 crashes
/// ```
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoredValueEncoder(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var choices = FuzzChoices(bytes: UnsafeBufferPointer(start: start, count: start == nil ? 0 : count))
    let record = choices.record(depth: 0)
    checkRoundTrip(record)
    checkRoundTrip([record, choices.record(depth: 3)])
    checkRoundTrip(["only": record])
    checkRoundTrip(record.shape)
    checkRoundTrip(record.mode)
    if let tree = nested(record, levels: Int(choices.byte())) {
        checkRoundTrip(tree)
    }
    return 0
}
