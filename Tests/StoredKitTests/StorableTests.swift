import Foundation
import Testing

@testable import StoredKit

@Suite("Storable: every built-in type round-trips exactly")
struct StorableTests {
    func roundTrip<Value: Codable & Sendable & Equatable>(_ value: Value) -> Value? {
        let store = PreferenceStore.inMemory()
        store.set(value, forKey: "k")
        return store.value(forKey: "k", as: Value.self)
    }

    @Test func integersKeepEveryWidthAndExtreme() {
        #expect(roundTrip(Int.min) == Int.min)
        #expect(roundTrip(Int64.max) == Int64.max)
        #expect(roundTrip(Int8.min) == Int8.min)
        #expect(roundTrip(Int16.max) == Int16.max)
        #expect(roundTrip(Int32.min) == Int32.min)
        #expect(roundTrip(UInt.max) == UInt.max)
        #expect(roundTrip(UInt8.max) == UInt8.max)
        #expect(roundTrip(UInt16.max) == UInt16.max)
        #expect(roundTrip(UInt32.max) == UInt32.max)
        #expect(roundTrip(UInt64.max) == UInt64.max)
        #expect(UInt64.max.storedValue == .uint(.max))
        #expect(UInt64(7).storedValue == .int(7))
    }

    @Test func floatingPointIsLossless() throws {
        #expect(roundTrip(Double.infinity) == .infinity)
        #expect(roundTrip(-Double.infinity) == -.infinity)
        #expect(roundTrip(Double.leastNonzeroMagnitude) == .leastNonzeroMagnitude)
        #expect(roundTrip(Float(0.1)) == Float(0.1))
        let nan = try #require(roundTrip(Double.nan))
        #expect(nan.isNaN)
        let negativeZero = try #require(roundTrip(-0.0))
        #expect(negativeZero.sign == .minus)
    }

    @Test func scalarsRoundTrip() {
        #expect(roundTrip(true) == true)
        #expect(roundTrip("") == "")
        #expect(roundTrip("héllo 👩‍👩‍👧 e\u{301}") == "héllo 👩‍👩‍👧 e\u{301}")
        #expect(roundTrip(Data()) == Data())
        #expect(roundTrip(Data([0, 255, 7])) == Data([0, 255, 7]))
        let date = Date(timeIntervalSinceReferenceDate: 12345.678)
        #expect(roundTrip(date) == date)
        let url = URL(fileURLWithPath: "/tmp/a b")
        #expect(roundTrip(url) == url)
        let uuid = UUID()
        #expect(roundTrip(uuid) == uuid)
    }

    @Test func collectionsRoundTrip() {
        #expect(roundTrip([Int]()) == [])
        #expect(roundTrip([1, 2, 3]) == [1, 2, 3])
        #expect(roundTrip(Set(["a", "b"])) == Set(["a", "b"]))
        #expect(roundTrip(["a": 1.5, "ü": -2]) == ["a": 1.5, "ü": -2])
        #expect(roundTrip([String: [Int]]()) == [:])
        #expect(roundTrip([["x": [true, false]]]) == [["x": [true, false]]])
    }

    @Test func equalSetsStoreEqualArrays() {
        var grown = Set<String>(minimumCapacity: 64)
        for letter in ["d", "a", "c", "b"] { grown.insert(letter) }
        let literal: Set<String> = ["a", "b", "c", "d"]
        #expect(grown.storedValue == literal.storedValue)
        #expect(literal.storedValue == .array(["a", "b", "c", "d"].map(StoredValue.string)))
    }

    @Test func narrowIntegerRefusesOutOfRangeInsteadOfTrapping() {
        let store = PreferenceStore.inMemory()
        store.set(300, forKey: "small")
        #expect(store.value(forKey: "small", as: UInt8.self) == nil)
        #expect(store.value(forKey: "small", as: Int.self) == 300)
        store.set(-1, forKey: "negative")
        #expect(store.value(forKey: "negative", as: UInt.self) == nil)
    }

    @Test func rawRepresentableIsStoredByRawValueEvenWhenCodable() {
        let store = PreferenceStore.inMemory()
        store.set(Theme.light, forKey: "theme")
        #expect(store.storedValue(forKey: "theme") == .string("light"))
        #expect(store.value(forKey: "theme", as: Theme.self) == .light)
        store.set(Accent.orange, forKey: "accent")
        #expect(store.storedValue(forKey: "accent") == .string("orange"))
        #expect(store.value(forKey: "accent", as: Accent.self) == .orange)
    }

    @Test func unknownRawValueReadsAsNilAndIsKept() {
        let store = PreferenceStore.inMemory(["accent": .string("purple")])
        #expect(store.value(forKey: "accent", as: Accent.self) == nil)
        #expect(store.storedValue(forKey: "accent") == .string("purple"))
    }

    @Test func storedValueEqualityIsStructuralAndBitExact() {
        #expect(StoredValue.int(3) == StoredValue.uint(3))
        #expect(Set<StoredValue>([.int(3), .uint(3)]).count == 1)
        #expect(StoredValue.double(.nan) == .double(.nan))
        #expect(StoredValue.double(0.0) != .double(-0.0))
        #expect(StoredValue.bool(true) != .int(1))
        #expect(StoredValue.dictionary(["a": .array([.int(1)])]).description == "{a = (1)}")
    }
}
