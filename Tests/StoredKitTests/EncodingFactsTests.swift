import Foundation
import Testing

@testable import StoredKit

/// A Codable `set` is admitted on what the encoder saw (``EncodingFacts``) instead of walking the
/// value again; these check that nothing the walks used to refuse gets through.
@Suite("A Codable set is admitted on what the encoder saw")
struct EncodingFactsTests {
    /// A Codable value that carries a raw tree, which the encoder places as it is.
    struct Carrier: Codable, Equatable {
        var label: String
        var raw: StoredValue
    }

    /// A value with a date only inside a nested container (a session of its own in the encoder).
    struct NestedDate: Codable {
        var when: Date

        enum Keys: String, CodingKey { case outer, when }

        init(when: Date) { self.when = when }

        init(from decoder: any Decoder) throws {
            var nested = try decoder.container(keyedBy: Keys.self).nestedUnkeyedContainer(forKey: .outer)
            when = try nested.nestedContainer(keyedBy: Keys.self).decode(Date.self, forKey: .when)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var nested = container.nestedUnkeyedContainer(forKey: .outer)
            var innermost = nested.nestedContainer(keyedBy: Keys.self)
            try innermost.encode(when, forKey: .when)
        }
    }

    /// A Codable struct with neither dates nor raw trees in it.
    struct Plain: Codable, Equatable {
        var name: String
    }

    static let dateWithoutXMLForm = Date(timeIntervalSinceReferenceDate: 1e300)

    @Test func theFactsSayWhetherADateWasWrittenAndWhetherEveryContainerWasChecked() throws {
        let plain = try EncodingSession.encodeWithFacts(["a": [1, 2], "b": [3]])
        #expect(plain.facts == .nothingWritten)
        let dated = try EncodingSession.encodeWithFacts(["a": [Date(timeIntervalSince1970: 5)]])
        #expect(dated.facts == EncodingFacts(nestingChecked: true, mayHoldDates: true))
        let nested = try EncodingSession.encodeWithFacts(NestedDate(when: Date(timeIntervalSince1970: 5)))
        #expect(nested.facts.mayHoldDates)
        #expect(nested.facts.nestingChecked)
        let carried = try EncodingSession.encodeWithFacts(Carrier(label: "x", raw: .int(1)))
        #expect(carried.facts == .unknown)
    }

    @Test func aDateWithoutXMLFormInACodableValueIsRefusedByAnXMLPlistStore() throws {
        let directory = try TemporaryDirectory()
        let store = try PreferenceStore(.plist(at: directory.file("prefs.plist"), format: .xml))
        store.set(NestedDate(when: Self.dateWithoutXMLForm), forKey: "nested")
        store.set(Carrier(label: "x", raw: .array([.date(Self.dateWithoutXMLForm)])), forKey: "carried")
        #expect(store.storedValue(forKey: "nested") == nil)
        #expect(store.storedValue(forKey: "carried") == nil)
        let refused = store.recentEvents.compactMap { event -> String? in
            if case .encodingFailed(let key, _) = event { key } else { nil }
        }
        #expect(refused == ["nested", "carried"])
        store.set(NestedDate(when: Date(timeIntervalSince1970: 5)), forKey: "nested")
        #expect(store.storedValue(forKey: "nested") != nil)
    }

    @Test func aRawTreeTooDeepInsideACodableValueIsRefused() throws {
        let store = PreferenceStore.inMemory()
        store.set(Carrier(label: "x", raw: DeepValue.arrays(StoredValue.maximumDepth)), forKey: "deep")
        #expect(store.storedValue(forKey: "deep") == nil)
        #expect(store.recentEvents.contains { if case .encodingFailed(key: "deep", _) = $0 { true } else { false } })
    }

    @Test func theEncodersLimitLiesWithinTheStoresLimit() throws {
        let store = PreferenceStore.inMemory()
        // As deep as the encoder allows: admitted on its facts and, as a raw value, by the walk.
        let atLimit = try StoredValueEncoder().encode(NestingNode.chain(StoredValue.maximumCodableDepth))
        store.set(NestingNode.chain(StoredValue.maximumCodableDepth), forKey: "codable")
        store.setStoredValue(atLimit, forKey: "raw")
        #expect(store.storedValue(forKey: "codable") == atLimit)
        #expect(store.storedValue(forKey: "raw") == atLimit)
        #expect(store.storedValue(forKey: "raw")?.isNested(deeperThan: StoredValue.maximumCodableDepth) == false)
        // A raw tree inside a Codable value may nest as deep as the store's limit.
        store.set(Carrier(label: "x", raw: DeepValue.arrays(StoredValue.maximumDepth - 1)), forKey: "carried")
        #expect(store.storedValue(forKey: "carried") != nil)
    }

    @Test func theReservedKeyIsRefusedForACodableValueWithoutDates() throws {
        let directory = try TemporaryDirectory()
        let store = try PreferenceStore(.plist(at: directory.file("prefs.plist"), format: .binary))
        store.set(Plain(name: "a"), forKey: "StoredKit.metadata")
        #expect(store.storedValue(forKey: "StoredKit.metadata") == nil)
        #expect(
            store.recentEvents.contains { if case .encodingFailed(key: "StoredKit.metadata", _) = $0 { true } else { false } }
        )
    }
}
