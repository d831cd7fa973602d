import Foundation
import StoredKit

/// The choices the generated values draw on: any `RandomNumberGenerator` — a
/// ``SeededGenerator`` in the tests, the fuzzer's input bytes in the encoder fuzz target.
extension RandomNumberGenerator {
    /// True about once in `odds` calls.
    mutating func chance(_ odds: UInt64) -> Bool { next() % odds == 0 }

    /// `make`'s value two times in three, else nil: an optional property set or left out.
    mutating func maybe<T>(_ make: (inout Self) -> T) -> T? {
        chance(3) ? nil : make(&self)
    }

    /// A key-like or awkward string: empty, non-ASCII, an emoji, longer than a small string.
    mutating func word() -> String {
        ["", "a", "tab.1", "Zürich", "super", "count", "名前", "x y", "\u{1F600}", "longer text than a small string"][
            Int(next() % 10)]
    }

    /// A double, now and then NaN, an infinity or negative zero.
    mutating func double() -> Double {
        switch next() % 6 {
        case 0: .nan
        case 1: -.infinity
        case 2: 0.1
        case 3: -0.0
        default: Double(bitPattern: next() & 0x7FEF_FFFF_FFFF_FFFF)
        }
    }
}

/// One of each shape the encoder handles: every scalar width, Foundation types, optionals,
/// enums (raw and with payloads), collections, sets, `[Int: V]`, a raw `StoredValue`, classes
/// with super encoders, hand-written containers, values that throw and values nested too deep.
/// Some encode to a tree that decodes to another value on purpose (a nil in a dictionary is left
/// out, a container is switched midway), so a round trip is judged by its encodings, not by `==`.
///
/// ```swift
/// var random = SeededGenerator(seed: 7)
/// try StoredValueEncoder().encode(GeneratedRecord.make(&random))  //=> the same tree, or the same error, for seed 7 every time
/// ```
public struct GeneratedRecord: Codable {
    /// A `String` raw-value enum.
    public enum Mode: String, Codable { case light, dark, system }
    enum Level: Int, Codable { case low = 1, high = 20 }
    /// An enum with payloads: labelled, unlabelled and none.
    public enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case square(Int8)
        case none
        case labelled(String, count: Int)
    }

    var count: Int
    var small: Int8?
    var unsigned: UInt16?
    var wide: UInt64?
    var medium: Int32?
    var natural: UInt?
    var ratio: Float?
    var volume: Double?
    var enabled: Bool?
    var name: String?
    var blob: Data?
    var when: Date?
    var link: URL?
    var identifier: UUID?
    /// Also encoded on its own by the encoder fuzz target: an enum at the top level.
    public var mode: Mode?
    var level: Level?
    /// Also encoded on its own by the encoder fuzz target.
    public var shape: Shape?
    var list: [Int]?
    var words: [String]?
    var holes: [Int?]?
    var tags: Set<String>?
    var moments: Set<Date>?
    var table: [String: Double]?
    var sparse: [String: Int?]?
    var numbered: [Int: String]?
    var grid: [[Int8]]?
    var raw: StoredValue?
    var huge: Int128?
    var derived: GeneratedDerived?
    var handWritten: GeneratedHandWritten?
    var thrower: GeneratedThrower?
    var chain: GeneratedChain?
    var children: [GeneratedRecord]?
    var byName: [String: GeneratedRecord]?

    /// A record drawn from `random`, with children down to two levels below `depth`.
    ///
    /// ```swift
    /// var random = SeededGenerator(seed: 1)
    /// GeneratedRecord.make(&random).mode  //=> the same mode (or nil) for seed 1 every time
    /// ```
    public static func make(_ random: inout some RandomNumberGenerator, depth: Int = 0) -> GeneratedRecord {
        var record = GeneratedRecord(count: Int(truncatingIfNeeded: random.next()))
        record.small = random.maybe { Int8(truncatingIfNeeded: $0.next()) }
        record.unsigned = random.maybe { UInt16(truncatingIfNeeded: $0.next()) }
        record.wide = random.maybe { $0.next() }
        record.medium = random.maybe { Int32(truncatingIfNeeded: $0.next()) }
        record.natural = random.maybe { UInt($0.next()) }
        record.ratio = random.maybe { Float($0.double()) }
        record.volume = random.maybe { $0.double() }
        record.enabled = random.maybe { $0.chance(2) }
        record.name = random.maybe { $0.word() }
        record.blob = random.maybe { Data($0.word().utf8) }
        record.when = random.maybe { Date(timeIntervalSinceReferenceDate: Double(Int32(truncatingIfNeeded: $0.next())) / 7) }
        record.link = random.maybe { URL(string: "https://example.com/\($0.next() % 100)?q=1") } ?? nil
        record.identifier = random.maybe {
            UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, UInt8($0.next() % 256)))
        }
        record.mode = random.maybe { [.light, .dark, .system][Int($0.next() % 3)] }
        record.level = random.maybe { $0.chance(2) ? .low : .high }
        record.shape = random.maybe { random in
            switch random.next() % 4 {
            case 0: .circle(radius: random.double())
            case 1: .square(Int8(truncatingIfNeeded: random.next()))
            case 2: .none
            default: .labelled(random.word(), count: Int(random.next() % 9))
            }
        }
        record.list = random.maybe { random in (0..<Int(random.next() % 5)).map { _ in Int(random.next() % 1000) } }
        record.words = random.maybe { random in (0..<Int(random.next() % 5)).map { _ in random.word() } }
        // An element that is nil cannot be stored: some of these fail, naming the element.
        record.holes = random.chance(4) ? (0..<3).map { _ in random.chance(8) ? nil : Int(random.next() % 9) } : nil
        record.tags = random.maybe { random in Set((0..<Int(random.next() % 6)).map { _ in random.word() }) }
        record.moments = random.maybe { random in
            // Dates within one second of each other: the text alone does not order them.
            Set(
                (0..<Int(random.next() % 4)).map { _ in
                    Date(timeIntervalSinceReferenceDate: 1000 + Double(random.next() % 8) / 10)
                })
        }
        record.table = random.maybe { random in
            Dictionary(
                (0..<Int(random.next() % 4)).map { _ in ("k\(random.next() % 9)", random.double()) },
                uniquingKeysWith: { a, _ in a })
        }
        record.sparse = random.maybe { random in
            ["a": random.chance(2) ? nil : 1, "b": 2, "c": random.chance(2) ? nil : 3]
        }
        record.numbered = random.maybe { random in [Int(random.next() % 5): random.word(), -1: "minus"] }
        record.grid = random.maybe { random -> [[Int8]] in [[1, 2], [], [Int8(truncatingIfNeeded: random.next())]] }
        record.raw = random.maybe { random in
            .dictionary([
                "n": .int(Int64(random.next() % 100)), "u": .uint(random.next()),
                "list": .array([.bool(true), .date(.distantPast)]),
            ])
        }
        // Beyond 64 bits now and then: refused, naming the key.
        record.huge = random.maybe { random in
            random.chance(5) ? Int128(UInt64.max) + 1 : Int128(Int64(truncatingIfNeeded: random.next()))
        }
        record.derived = random.maybe { GeneratedDerived.make(&$0) }
        record.handWritten = random.maybe { GeneratedHandWritten.make(&$0) }
        record.thrower = random.chance(6) ? GeneratedThrower(fails: random.chance(2)) : nil
        record.chain = random.chance(12) ? GeneratedChain.make(length: 118 + Int(random.next() % 16)) : nil
        if depth < 2 {
            record.children = random.maybe { random in (0..<Int(random.next() % 3)).map { _ in make(&random, depth: depth + 1) } }
            record.byName = random.chance(3) ? ["first": make(&random, depth: depth + 1)] : nil
        }
        return record
    }
}

/// A class whose superclass writes through `superEncoder()`, and one sharing its superclass's container.
class GeneratedBase: Codable {
    var title = ""
}

final class GeneratedDerived: GeneratedBase {
    var extra: [String: [Bool]] = [:]
    var sharesContainer = false

    enum CodingKeys: String, CodingKey { case extra, sharesContainer }

    static func make(_ random: inout some RandomNumberGenerator) -> GeneratedDerived {
        let value = GeneratedDerived()
        value.title = random.word()
        value.extra = [random.word(): [random.chance(2)], "fixed": []]
        value.sharesContainer = random.chance(2)
        return value
    }

    override init() { super.init() }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        extra = try container.decode([String: [Bool]].self, forKey: .extra)
        sharesContainer = try container.decode(Bool.self, forKey: .sharesContainer)
        if sharesContainer {
            try super.init(from: decoder)
        } else {
            try super.init(from: container.superDecoder())
        }
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(extra, forKey: .extra)
        try container.encode(sharesContainer, forKey: .sharesContainer)
        if sharesContainer {
            try super.encode(to: encoder)
        } else {
            try super.encode(to: container.superEncoder())
        }
    }
}

/// Every container call by hand: nested keyed and unkeyed containers (written to after a later
/// sibling), super encoders of an array, a key written twice, `encodeNil` removing a key, an
/// error caught inside `encode(to:)` and a container kind switched midway.
struct GeneratedHandWritten: Codable {
    var numbers: [Int]
    var label: String
    var caught: Bool
    var switched: Bool

    enum CodingKeys: String, CodingKey { case numbers, point, label, later, removed, caught, fallback, switched }
    enum PointKeys: String, CodingKey { case x, y }

    static func make(_ random: inout some RandomNumberGenerator) -> GeneratedHandWritten {
        GeneratedHandWritten(
            numbers: (0..<Int(random.next() % 4)).map { _ in Int(random.next() % 50) }, label: random.word(),
            caught: random.chance(2), switched: random.chance(5))
    }

    init(numbers: [Int], label: String, caught: Bool, switched: Bool) {
        (self.numbers, self.label, self.caught, self.switched) = (numbers, label, caught, switched)
    }

    init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let label = try? single.decode(String.self) {
            self.init(numbers: [], label: label, caught: false, switched: true)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .numbers)
        var numbers: [Int] = []
        while !list.isAtEnd {
            let element = try list.nestedContainer(keyedBy: PointKeys.self)
            numbers.append(try element.decode(Int.self, forKey: .x))
        }
        self.init(
            numbers: numbers, label: try container.decode(String.self, forKey: .label),
            caught: try container.decodeIfPresent(Bool.self, forKey: .fallback) ?? false, switched: false)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list = container.nestedUnkeyedContainer(forKey: .numbers)
        var point = container.nestedContainer(keyedBy: PointKeys.self, forKey: .point)
        try container.encode(label, forKey: .removed)
        try container.encodeNil(forKey: .removed)
        try container.encode("first", forKey: .label)
        try container.encode(label, forKey: .label)
        for number in numbers {
            var element = list.nestedContainer(keyedBy: PointKeys.self)
            try element.encode(number, forKey: .x)
        }
        try point.encode(numbers.count, forKey: .x)
        try point.encode(label, forKey: .y)
        try GeneratedBase().encode(to: container.superEncoder(forKey: .later))
        if caught {
            do {
                try container.encode([1, nil, 3] as [Int?], forKey: .caught)
            } catch {
                try container.encode(true, forKey: .fallback)
            }
        }
        if switched {
            var single = encoder.singleValueContainer()
            try single.encode(label)
        }
    }
}

/// Throws `EncodingError.invalidValue` with the path it was given, when `fails`.
struct GeneratedThrower: Codable {
    var fails: Bool

    init(fails: Bool) { self.fails = fails }

    init(from decoder: any Decoder) throws {
        fails = try decoder.singleValueContainer().decode(Bool.self)
    }

    func encode(to encoder: any Encoder) throws {
        guard fails else {
            var container = encoder.singleValueContainer()
            try container.encode(fails)
            return
        }
        throw EncodingError.invalidValue(fails, .init(codingPath: encoder.codingPath, debugDescription: "refused on purpose"))
    }
}

/// A linked list of classes around ``StoredValue/maximumCodableDepth`` levels deep.
final class GeneratedChain: Codable {
    var next: GeneratedChain?

    init(next: GeneratedChain?) { self.next = next }

    static func make(length: Int) -> GeneratedChain {
        var head = GeneratedChain(next: nil)
        for _ in 1..<length { head = GeneratedChain(next: head) }
        return head
    }
}
