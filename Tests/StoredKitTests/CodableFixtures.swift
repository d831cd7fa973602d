import Foundation

/// Uses every container API by hand: nested keyed and unkeyed containers and super encoders.
struct HandWritten: Codable, Equatable {
    var name: String
    var point: (x: Int, y: Int)
    var tags: [String]
    var parentName: String
    var extra: Double

    enum CodingKeys: String, CodingKey {
        case name, point, tags, parent, list
    }

    enum PointKeys: String, CodingKey {
        case x, y
    }

    enum ParentKeys: String, CodingKey {
        case name
    }

    init(name: String, point: (x: Int, y: Int), tags: [String], parentName: String, extra: Double) {
        self.name = name
        self.point = point
        self.tags = tags
        self.parentName = parentName
        self.extra = extra
    }

    static func == (lhs: HandWritten, rhs: HandWritten) -> Bool {
        lhs.name == rhs.name && lhs.point == rhs.point && lhs.tags == rhs.tags && lhs.parentName == rhs.parentName
            && lhs.extra == rhs.extra
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        var point = container.nestedContainer(keyedBy: PointKeys.self, forKey: .point)
        try point.encode(self.point.x, forKey: .x)
        try point.encode(self.point.y, forKey: .y)
        var tags = container.nestedUnkeyedContainer(forKey: .tags)
        for tag in self.tags { try tags.encode(tag) }
        var parent = container.superEncoder(forKey: .parent).container(keyedBy: ParentKeys.self)
        try parent.encode(parentName, forKey: .name)
        try extra.encode(to: container.superEncoder())
        var list = container.nestedUnkeyedContainer(forKey: .list)
        var inner = list.nestedContainer(keyedBy: PointKeys.self)
        try inner.encode(self.point.x, forKey: .x)
        var innerList = list.nestedUnkeyedContainer()
        try innerList.encode(self.point.y)
        try name.encode(to: list.superEncoder())
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        let point = try container.nestedContainer(keyedBy: PointKeys.self, forKey: .point)
        self.point = (try point.decode(Int.self, forKey: .x), try point.decode(Int.self, forKey: .y))
        var tags = try container.nestedUnkeyedContainer(forKey: .tags)
        var decodedTags: [String] = []
        while !tags.isAtEnd { decodedTags.append(try tags.decode(String.self)) }
        self.tags = decodedTags
        parentName = try container.superDecoder(forKey: .parent).container(keyedBy: ParentKeys.self)
            .decode(String.self, forKey: .name)
        extra = try Double(from: container.superDecoder())
        var list = try container.nestedUnkeyedContainer(forKey: .list)
        let inner = try list.nestedContainer(keyedBy: PointKeys.self)
        var innerList = try list.nestedUnkeyedContainer()
        let listName = try String(from: list.superDecoder())
        guard try inner.decode(Int.self, forKey: .x) == self.point.x, try innerList.decode(Int.self) == self.point.y,
            listName == name
        else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "list disagrees"))
        }
    }
}

/// A class hierarchy whose subclass encodes its superclass through `superEncoder()`.
class Animal: Codable {
    var legs: Int

    init(legs: Int) {
        self.legs = legs
    }
}

final class Dog: Animal {
    var name: String

    enum CodingKeys: String, CodingKey {
        case name
    }

    init(legs: Int, name: String) {
        self.name = name
        super.init(legs: legs)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try super.encode(to: container.superEncoder())
    }
}

/// Synthesized Codable for enums with associated values (labelled, unlabelled, none).
enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(Int, Int)
    case labelled(String, count: Int?)
    case empty
}

/// Every scalar the coders support, at its extremes.
struct Extremes: Codable, Equatable {
    var int8Min = Int8.min
    var int16Max = Int16.max
    var int32Min = Int32.min
    var int64Min = Int64.min
    var int64Max = Int64.max
    var intMax = Int.max
    var uint8Max = UInt8.max
    var uint16Max = UInt16.max
    var uint32Max = UInt32.max
    var uint64Max = UInt64.max
    var uintMax = UInt.max
    var floatMax = Float.greatestFiniteMagnitude
    var floatTiny = Float.leastNonzeroMagnitude
    var doubleTiny = Double.leastNonzeroMagnitude
    var negativeZero = -0.0
    var infinity = Double.infinity
    var negativeInfinity = -Double.infinity
    var floatInfinity = -Float.infinity
    var empty = ""
    var unicode = "e\u{301}👩‍👩‍👧 \u{0}ñ"
    var emptyArray: [Int] = []
    var emptyDictionary: [String: Int] = [:]
    var emptyStruct = Nothing()
    var nested: [[String: [Int]]] = [["a": []], [:]]
    var set: Set<Int> = [1, -2]
    var byInt: [Int: [String]] = [0: [], -1: ["x"]]

    struct Nothing: Codable, Equatable {}
}
