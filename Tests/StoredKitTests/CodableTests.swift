import Foundation
import StoredKitTestSupport
import Synchronization
import Testing

@testable import StoredKit

/// Encodes then decodes, returning both the stored form and the decoded value.
private func roundTrip<T: Codable>(_ value: T) throws -> (stored: StoredValue, decoded: T) {
    let stored = try StoredValueEncoder().encode(value)
    return (stored, try StoredValueDecoder().decode(T.self, from: stored))
}

/// The thrown error as a `StoreError`, or `nil` if nothing (or something else) was thrown.
private func storeError(_ body: () throws -> Void) -> StoreError? {
    do {
        try body()
        return nil
    } catch {
        return error as? StoreError
    }
}

@Suite("StoredValueEncoder and StoredValueDecoder")
struct CodableTests {
    // MARK: Scalars

    @Test func integerWidthsEncodeToTheirCanonicalCase() throws {
        let encoder = StoredValueEncoder()
        #expect(try encoder.encode(Int8(-3)) == .int(-3))
        #expect(try encoder.encode(Int64.min) == .int(Int64.min))
        #expect(try encoder.encode(UInt8(200)) == .int(200))
        #expect(try encoder.encode(UInt64(7)) == .int(7))
        #expect(try encoder.encode(UInt64.max) == .uint(UInt64.max))
        guard case .uint = try encoder.encode(UInt.max) else {
            Issue.record("UInt.max should be stored as .uint")
            return
        }
    }

    @Test func extremesRoundTripLosslessly() throws {
        let (stored, decoded) = try roundTrip(Extremes())
        #expect(decoded == Extremes())
        let dictionary = try #require({ if case .dictionary(let d) = stored { d } else { nil } }())
        #expect(dictionary["int64Min"] == .int(Int64.min))
        #expect(dictionary["uint64Max"] == .uint(UInt64.max))
        #expect(dictionary["negativeZero"] == .double(-0.0))
        #expect(dictionary["negativeZero"] != .double(0.0))
        #expect(dictionary["emptyStruct"] == .dictionary([:]))
        #expect(dictionary["emptyArray"] == .array([]))
        #expect(decoded.negativeZero.sign == .minus)
    }

    @Test func notANumberRoundTrips() throws {
        let doubles = try roundTrip([Double.nan, -Double.nan, .infinity, -.infinity, -0.0])
        #expect(doubles.decoded.map(\.bitPattern) == [Double.nan, -Double.nan, .infinity, -.infinity, -0.0].map(\.bitPattern))
        let float = try roundTrip(Float.nan)
        #expect(float.stored == .double(Double(Float.nan)))
        #expect(float.decoded.isNaN)
        #expect(try roundTrip(-Float.infinity).decoded == -.infinity)
    }

    @Test func wideIntegersWithinSixtyFourBitsRoundTrip() throws {
        #expect(try roundTrip(Int128(Int64.min)).decoded == Int128(Int64.min))
        #expect(try roundTrip(UInt128(UInt64.max)).stored == .uint(UInt64.max))
        let error = storeError { _ = try StoredValueEncoder().encode(["big": Int128(UInt64.max) + 1]) }
        guard case .unrepresentable(let key, _) = error else {
            Issue.record("expected unrepresentable, got \(String(describing: error))")
            return
        }
        #expect(key == "big")
        // A whole double is read as an integer only within 64 bits, so what decodes can be written back.
        #expect(throws: StoreError.self) { try StoredValueDecoder().decode(Int128.self, from: .double(1e30)) }
        #expect(try StoredValueDecoder().decode(Int128.self, from: .double(3)) == 3)
    }

    // MARK: Native types

    @Test func dateDataAndURLStayNative() throws {
        struct Record: Codable, Equatable {
            var when: Date
            var bytes: Data
            var link: URL
            var id: UUID
        }
        let record = Record(
            when: Date(timeIntervalSinceReferenceDate: 123.456),
            bytes: Data([0, 1, 255]),
            link: URL(string: "https://example.com/a?b=c")!,  // trap-ok: literal in a test
            id: UUID()
        )
        let (stored, decoded) = try roundTrip(record)
        #expect(decoded == record)
        #expect(
            stored
                == .dictionary([
                    "when": .date(record.when), "bytes": .data(record.bytes),
                    "link": .string("https://example.com/a?b=c"), "id": .string(record.id.uuidString),
                ]))
        #expect(try StoredValueEncoder().encode(record.when) == .date(record.when))
        #expect(try StoredValueEncoder().encode([record.bytes]) == .array([.data(record.bytes)]))
    }

    // MARK: Containers

    @Test func handWrittenContainersRoundTrip() throws {
        let value = HandWritten(name: "n", point: (3, -4), tags: ["a", ""], parentName: "p", extra: 2.5)
        let (stored, decoded) = try roundTrip(value)
        #expect(decoded == value)
        #expect(
            stored
                == .dictionary([
                    "name": .string("n"),
                    "point": .dictionary(["x": .int(3), "y": .int(-4)]),
                    "tags": .array([.string("a"), .string("")]),
                    "parent": .dictionary(["name": .string("p")]),
                    "super": .double(2.5),
                    "list": .array([.dictionary(["x": .int(3)]), .array([.int(-4)]), .string("n")]),
                ]))
    }

    @Test func subclassEncodesItsSuperclassUnderSuper() throws {
        let (stored, decoded) = try roundTrip(Dog(legs: 4, name: "Rex"))
        #expect(stored == .dictionary(["name": .string("Rex"), "super": .dictionary(["legs": .int(4)])]))
        #expect(decoded.legs == 4)
        #expect(decoded.name == "Rex")
    }

    @Test func enumsWithAssociatedValuesRoundTrip() throws {
        let shapes: [Shape] = [
            .circle(radius: 1.5), .rectangle(2, 3), .labelled("x", count: nil), .labelled("", count: 0), .empty,
        ]
        let (stored, decoded) = try roundTrip(shapes)
        #expect(decoded == shapes)
        guard case .array(let elements) = stored else {
            Issue.record("expected an array")
            return
        }
        #expect(elements[0] == .dictionary(["circle": .dictionary(["radius": .double(1.5)])]))
        #expect(elements[1] == .dictionary(["rectangle": .dictionary(["_0": .int(2), "_1": .int(3)])]))
        #expect(elements[2] == .dictionary(["labelled": .dictionary(["_0": .string("x")])]))
        #expect(elements[4] == .dictionary(["empty": .dictionary([:])]))
    }

    @Test func dictionariesWithNonStringKeys() throws {
        let byInt = try roundTrip([1: "one", -2: "minus two"])
        #expect(byInt.stored == .dictionary(["1": .string("one"), "-2": .string("minus two")]))
        #expect(byInt.decoded == [1: "one", -2: "minus two"])

        let byBool = try roundTrip([true: 1])
        #expect(byBool.stored == .array([.bool(true), .int(1)]))
        #expect(byBool.decoded == [true: 1])

        let byUUID = UUID()
        #expect(try roundTrip([byUUID: [1.5]]).decoded == [byUUID: [1.5]])
    }

    @Test func unicodeKeysRoundTrip() throws {
        let keys = ["🙂", "e\u{301}x", "👩‍👩‍👧", "", "ñ", "key with spaces"]
        let value = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        let (stored, decoded) = try roundTrip(value)
        #expect(decoded == value)
        guard case .dictionary(let dictionary) = stored else {
            Issue.record("expected a dictionary")
            return
        }
        #expect(dictionary.keys.contains { Array($0.unicodeScalars) == Array("e\u{301}x".unicodeScalars) })
    }

    // MARK: Optionals

    @Test func nilPropertiesAreOmittedAndMissingKeysReadAsNil() throws {
        struct Settings: Codable, Equatable {
            var name: String?
            var count: Int?
            var nested: [String]?
        }
        let (stored, decoded) = try roundTrip(Settings(name: nil, count: 2, nested: nil))
        #expect(stored == .dictionary(["count": .int(2)]))
        #expect(decoded == Settings(name: nil, count: 2, nested: nil))
        #expect(try StoredValueDecoder().decode(Settings.self, from: .dictionary([:])) == Settings())
    }

    @Test func encodeNilInAKeyedContainerOmitsTheKey() throws {
        struct ExplicitNil: Encodable {
            enum CodingKeys: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encodeNil(forKey: .a)
                try container.encode(Int?.none, forKey: .b)
            }
        }
        #expect(try StoredValueEncoder().encode(ExplicitNil()) == .dictionary([:]))
    }

    @Test func nilAtTheTopOrInAnArrayIsUnrepresentable() throws {
        struct Inner: Codable { var b: [Int?] }
        struct Outer: Codable { var a: Inner }
        let nested = storeError { _ = try StoredValueEncoder().encode(Outer(a: Inner(b: [1, 2, nil]))) }
        guard case .unrepresentable(let key, _) = nested else {
            Issue.record("expected unrepresentable, got \(String(describing: nested))")
            return
        }
        #expect(key == "a.b[2]")

        let topLevel = storeError { _ = try StoredValueEncoder().encode(String?.none) }
        guard case .unrepresentable(let topKey, _) = topLevel else {
            Issue.record("expected unrepresentable, got \(String(describing: topLevel))")
            return
        }
        #expect(topKey == "")
    }

    // MARK: Errors

    @Test func typeMismatchNamesThePath() throws {
        var stored = try StoredValueEncoder().encode(SidebarCustomization.twentyTabs())
        guard case .dictionary(var root) = stored, case .dictionary(var tabs) = root["tabs"],
            case .dictionary(var tab) = tabs["tab-3"]
        else {
            Issue.record("unexpected shape \(stored)")
            return
        }
        tab["badge"] = .string("three")
        tabs["tab-3"] = .dictionary(tab)
        root["tabs"] = .dictionary(tabs)
        stored = .dictionary(root)
        let error = storeError { _ = try StoredValueDecoder().decode(SidebarCustomization.self, from: stored) }
        guard case .typeMismatch(let key, let expected, let found) = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect((key, expected, found) == ("tabs.tab-3.badge", "Int", "string"))
    }

    @Test func missingRequiredKeyFindsNothing() throws {
        let error = storeError {
            _ = try StoredValueDecoder().decode(SidebarCustomization.self, from: .dictionary(["tabs": .dictionary([:])]))
        }
        guard case .typeMismatch(let key, _, let found) = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(key == "sectionOrders")
        #expect(found == "nothing")
    }

    @Test func outOfRangeIntegersAreRefused() throws {
        let decoder = StoredValueDecoder()
        let cases: [(any Decodable.Type, StoredValue)] = [
            (Int8.self, .int(300)), (UInt.self, .int(-1)), (Int64.self, .uint(UInt64.max)),
            (UInt16.self, .int(70_000)), (Int.self, .double(2.5)), (Int.self, .double(.nan)),
            (Float.self, .double(1e300)),
        ]
        for (type, value) in cases {
            let error = storeError { _ = try decoder.decode(type, from: value) }
            guard case .typeMismatch(_, let expected, _) = error else {
                Issue.record("\(type) from \(value) should throw typeMismatch, got \(String(describing: error))")
                continue
            }
            #expect(expected == String(describing: type))
        }
        #expect(try decoder.decode(Int.self, from: .double(3)) == 3)
        #expect(try decoder.decode(Double.self, from: .int(-3)) == -3)
        #expect(try decoder.decode(UInt64.self, from: .uint(UInt64.max)) == UInt64.max)
        #expect(try decoder.decode([Int8].self, from: .array([.int(-128), .int(127)])) == [-128, 127])
    }

    @Test func arrayElementMismatchNamesTheIndex() throws {
        let error = storeError {
            _ = try StoredValueDecoder().decode(
                [String: [Int]].self, from: .dictionary(["list": .array([.int(1), .bool(true)])]))
        }
        guard case .typeMismatch(let key, let expected, let found) = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect((key, expected, found) == ("list[1]", "Int", "boolean"))
    }

    @Test func wrongContainerShapeIsAMismatch() throws {
        let error = storeError { _ = try StoredValueDecoder().decode([Int].self, from: .dictionary([:])) }
        guard case .typeMismatch(_, let expected, let found) = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect((expected, found) == ("array", "dictionary"))
    }

    @Test func rejectedRawValueBecomesATypeMismatch() throws {
        let stored = StoredValue.dictionary([
            "tabs": .dictionary(["t": .dictionary(["visibility": .string("purple"), "isPinned": .bool(true)])]),
            "sectionOrders": .array([]), "revision": .int(1),
        ])
        let error = storeError { _ = try StoredValueDecoder().decode(SidebarCustomization.self, from: stored) }
        guard case .typeMismatch(let key, let expected, let found) = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(key == "tabs.t.visibility")
        #expect(expected == "Visibility")
        #expect(found.contains("purple"))
    }

    @Test func enumWithTwoCasesAtOnceIsAMismatch() throws {
        let stored = StoredValue.dictionary(["empty": .dictionary([:]), "circle": .dictionary(["radius": .double(1)])])
        let error = storeError { _ = try StoredValueDecoder().decode(Shape.self, from: stored) }
        guard case .typeMismatch(_, let expected, _) = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(expected == "Shape")
    }

    // MARK: The hot-path fixture

    // MARK: One decoder for the whole tree

    @Test func aNestedValueSeesItsWholeCodingPath() throws {
        let stored = StoredValue.dictionary([
            "first": .dictionary(["inner": .array([.dictionary([:]), .dictionary([:])])]),
            "second": .dictionary(["inner": .array([.dictionary([:])])]),
        ])
        let decoded = try StoredValueDecoder().decode([String: PathHolder].self, from: stored)
        #expect(decoded["first"]?.inner.map(\.path) == ["first.inner[0]", "first.inner[1]"])
        #expect(decoded["second"]?.inner.map(\.path) == ["second.inner[0]"])
    }

    @Test func aCaughtFailureInsideANestedValueLeavesTheRestReadable() throws {
        let stored = StoredValue.dictionary([
            "broken": .dictionary(["deep": .dictionary(["number": .string("not a number")])]),
            "after": .int(7),
        ])
        let decoded = try StoredValueDecoder().decode(Forgiving.self, from: stored)
        #expect(decoded.broken == nil)
        #expect(decoded.after == 7)
        #expect(decoded.pathAfterFailure == "")
    }

    @Test func theDecoderIsReleasedAfterDecoding() throws {
        let stored = StoredValue.dictionary(["inner": .dictionary(["inner": .dictionary([:])])])
        let spy = try StoredValueDecoder().decode(DecoderSpy.self, from: stored)
        // Reused keyed containers refer to the decoder, which refers to them: a cycle until
        // the decoding finishes.
        #expect(spy.decoder == nil)
        #expect(spy.inner?.inner != nil)
    }

    @Test func aDecoderKeptPastTheDecodingFindsNothingAndIsReleased() throws {
        weak var weakDecoder: AnyObject?
        do {
            let kept = try StoredValueDecoder().decode(
                [String: DecoderKeeper].self, from: .dictionary(["a": .dictionary(["x": .int(2)]), "x": .int(1)]))
            let decoder = try #require(kept["a"]?.decoder)
            weakDecoder = decoder as AnyObject
            // Reading the root value here would be wrong data; an error is the honest answer.
            #expect(throws: DecodingError.self) { _ = try decoder.container(keyedBy: DecoderKeeper.Keys.self) }
        }
        #expect(weakDecoder == nil)
    }

    @Test func theEncoderIsReleasedAfterEncodingNestedContainers() throws {
        let sink = WeakSink()
        let stored = try StoredValueEncoder().encode([NestedContainerWriter(sink: sink)])
        #expect(stored == .array([.dictionary(["n": .dictionary(["x": .int(1)])])]))
        #expect(sink.object == nil)
    }

    @Test func aTypeCanCatchTheDecodingErrorOfANestedValue() throws {
        let stored = StoredValue.dictionary([
            "mode": .string("from a newer version"), "count": .string("three"), "after": .int(7),
        ])
        let json = try JSONEncoder().encode(
            ["mode": AnyEncodable("from a newer version"), "count": AnyEncodable("three"), "after": AnyEncodable(7)])
        let fromJSON = try JSONDecoder().decode(Forward.self, from: json)
        let decoded = try StoredValueDecoder().decode(Forward.self, from: stored)
        #expect(decoded == fromJSON)
        #expect(decoded == Forward(mode: .standard, count: 0, after: 7, caught: ["dataCorrupted mode", "typeMismatch count"]))
    }

    /// A set equal to `set` whose iteration order differs: the same elements in a table of
    /// another size iterate in another order. Records an issue (and returns nil) if none is found.
    static func equalSet<Element>(inAnotherOrderThan set: Set<Element>) -> Set<Element>? {
        for power in 1...8 {
            var other = Set<Element>(minimumCapacity: 64 << power)
            other.formUnion(set)
            if Array(other) != Array(set) { return other }
        }
        Issue.record("could not build an equal set that iterates in another order")
        return nil
    }

    @Test func equalSetsEncodeEquallyWhateverTheirOrder() throws {
        struct Tags: Codable, Equatable {
            var names: Set<String>
        }
        let words = (0..<40).map { "tag\($0)" }
        let small = Set(words)
        guard let large = Self.equalSet(inAnotherOrderThan: small) else { return }
        let encoder = StoredValueEncoder()
        #expect(try encoder.encode(Tags(names: small)) == encoder.encode(Tags(names: large)))
        #expect(try encoder.encode(small) == encoder.encode(large))
        guard case .dictionary(let fields) = try encoder.encode(Tags(names: large)) else {
            Issue.record("a struct should encode as a dictionary")
            return
        }
        #expect(fields["names"] == .array(words.sorted().map { .string($0) }))
        #expect(try roundTrip(Tags(names: large)).decoded == Tags(names: small))

        // So writing an equal value again is no change: observers hear nothing.
        let store = PreferenceStore.inMemory()
        store.set(Tags(names: small), forKey: "tags")
        let heard = Mutex(0)
        let token = store.observe("tags") { _ in heard.withLock { $0 += 1 } }
        store.set(Tags(names: large), forKey: "tags")
        #expect(heard.withLock { $0 } == 0)
        withExtendedLifetime(token) {}
    }

    @Test func equalSetsOfDatesWithinOneSecondEncodeEqually() throws {
        let base = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let dates = (0..<8).map { base.addingTimeInterval(Double($0) * 0.1) }  // all in one second
        let small = Set(dates)
        guard let large = Self.equalSet(inAnotherOrderThan: small) else { return }
        let encoder = StoredValueEncoder()
        #expect(try encoder.encode(small) == encoder.encode(large))
        #expect(small.storedValue == large.storedValue)
    }

    @Test func twentyTabCustomizationRoundTripsAndMatchesJSON() throws {
        let customization = SidebarCustomization.twentyTabs()
        let (stored, decoded) = try roundTrip(customization)
        #expect(decoded == customization)
        let json = try JSONEncoder().encode(customization)
        #expect(try JSONDecoder().decode(SidebarCustomization.self, from: json) == decoded)
        guard case .dictionary(let root) = stored, case .dictionary(let tabs) = root["tabs"] else {
            Issue.record("expected a dictionary of tabs")
            return
        }
        #expect(tabs.count == 20)
        #expect(tabs["tab-0"] == .dictionary(["visibility": .string("automatic"), "isPinned": .bool(true), "badge": .int(0)]))
    }
}

/// Records the coding path its decoder reports, as `a.b[2]`.
private struct PathHolder: Decodable {
    let path: String
    let inner: [PathHolder]

    init(from decoder: any Decoder) throws {
        path =
            decoder.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            .trimmingPrefix(".").description
        let container = try decoder.container(keyedBy: Keys.self)
        inner = try container.decodeIfPresent([PathHolder].self, forKey: .inner) ?? []
    }

    enum Keys: String, CodingKey { case inner }
}

/// Swallows a failure deep inside one property, then reads the next one from the same container.
private struct Forgiving: Decodable {
    struct Deep: Decodable { let number: Int }
    struct Broken: Decodable { let deep: Deep }

    let broken: Broken?
    let after: Int
    let pathAfterFailure: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        broken = try? container.decode(Broken.self, forKey: .broken)
        pathAfterFailure = decoder.codingPath.map(\.stringValue).joined(separator: ".")
        after = try container.decode(Int.self, forKey: .after)
    }

    enum Keys: String, CodingKey { case broken, after }
}

/// Keeps a weak reference to the decoder that made it.
private final class DecoderSpy: Decodable {
    weak var decoder: AnyObject?
    let inner: DecoderSpy?

    init(from decoder: any Decoder) throws {
        self.decoder = decoder as AnyObject
        let container = try decoder.container(keyedBy: Keys.self)
        inner = try container.decodeIfPresent(DecoderSpy.self, forKey: .inner)
    }

    enum Keys: String, CodingKey { case inner }
}

/// Keeps the decoder it was given, which the Codable contract does not ask for.
private final class DecoderKeeper: Decodable {
    let decoder: any Decoder

    init(from decoder: any Decoder) throws {
        self.decoder = decoder
    }

    enum Keys: String, CodingKey { case x }
}

/// Holds one object weakly.
private final class WeakSink {
    weak var object: AnyObject?
}

/// Writes through a nested keyed container and remembers its encoder weakly.
private struct NestedContainerWriter: Encodable {
    let sink: WeakSink

    enum Keys: String, CodingKey { case n, x }

    func encode(to encoder: any Encoder) throws {
        sink.object = encoder as AnyObject
        var container = encoder.container(keyedBy: Keys.self)
        var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .n)
        try nested.encode(1, forKey: .x)
    }
}

/// Falls back to defaults for values it does not understand, by catching the `DecodingError`
/// of the nested value, the way a type written against `JSONDecoder` does.
private struct Forward: Decodable, Equatable {
    enum Mode: String, Decodable { case standard, compact }
    enum Keys: String, CodingKey { case mode, count, after }

    var mode: Mode
    var count: Int
    var after: Int
    var caught: [String]

    init(mode: Mode, count: Int, after: Int, caught: [String]) {
        (self.mode, self.count, self.after, self.caught) = (mode, count, after, caught)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        caught = []
        do {
            mode = try container.decode(Mode.self, forKey: .mode)
        } catch DecodingError.dataCorrupted(let context) {
            caught.append("dataCorrupted \(context.codingPath.map(\.stringValue).joined(separator: "."))")
            mode = .standard
        }
        do {
            count = try container.decode(Int.self, forKey: .count)
        } catch DecodingError.typeMismatch(_, let context) {
            caught.append("typeMismatch \(context.codingPath.map(\.stringValue).joined(separator: "."))")
            count = 0
        }
        after = try container.decode(Int.self, forKey: .after)
    }
}

/// Lets a test build mixed JSON with `JSONEncoder`.
private struct AnyEncodable: Encodable {
    let encodeValue: (any Encoder) throws -> Void

    init(_ value: some Encodable) {
        encodeValue = { try value.encode(to: $0) }
    }

    func encode(to encoder: any Encoder) throws {
        try encodeValue(encoder)
    }
}
