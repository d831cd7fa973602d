import Foundation
import Testing

@testable import StoredKit

/// The encoder and the decoder keep one container per coding key type and hand it out again,
/// by an unchecked cast (``ContainerHandOut``). A container handed out for the wrong key type
/// would write under the wrong keys or crash, so these values mix key types in every way a
/// session sees them: nested, side by side, the same type again deeper down, and a class and its
/// superclass writing into one dictionary with keys of different types.
@Suite("Kept containers are handed out for their own key type")
struct ContainerHandOutTests {
    struct Leaf: Codable, Equatable {
        var id: Int
        var label: String
    }

    struct Branch: Codable, Equatable {
        var leaves: [Leaf]
        var first: Leaf
        var inner: Inner
    }

    struct Inner: Codable, Equatable {
        var leaf: Leaf
        var depth: Int
    }

    class Base: Codable {
        var base: String
        init(base: String) { self.base = base }
        private enum BaseKeys: String, CodingKey { case base }
        required init(from decoder: any Decoder) throws {
            base = try decoder.container(keyedBy: BaseKeys.self).decode(String.self, forKey: .base)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: BaseKeys.self)
            try container.encode(base, forKey: .base)
        }
    }

    /// Writes its own keys and its superclass's into the same dictionary.
    final class Derived: Base {
        var derived: Int
        init(base: String, derived: Int) {
            self.derived = derived
            super.init(base: base)
        }
        private enum DerivedKeys: String, CodingKey { case derived }
        required init(from decoder: any Decoder) throws {
            derived = try decoder.container(keyedBy: DerivedKeys.self).decode(Int.self, forKey: .derived)
            try super.init(from: decoder)
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: DerivedKeys.self)
            try container.encode(derived, forKey: .derived)
            try super.encode(to: encoder)
        }
    }

    static func branch(_ seed: Int) -> Branch {
        Branch(
            leaves: (0..<3).map { Leaf(id: seed + $0, label: "leaf \(seed + $0)") },
            first: Leaf(id: -seed, label: "first"),
            inner: Inner(leaf: Leaf(id: seed * 10, label: "inner"), depth: seed))
    }

    @Test("every pass of a reused session writes and reads each type under its own keys")
    func mixedKeyTypesRoundTripOnEveryPass() throws {
        for seed in 0..<20 {
            let value = Self.branch(seed)
            let stored = try StoredValueEncoder().encode(value)
            guard case .dictionary(let top) = stored, case .dictionary(let inner)? = top["inner"] else {
                Issue.record("\(stored) is not a branch")
                return
            }
            #expect(Set(top.keys) == ["leaves", "first", "inner"])
            #expect(Set(inner.keys) == ["leaf", "depth"])
            #expect(inner["depth"] == .int(Int64(seed)))
            #expect(try StoredValueDecoder().decode(Branch.self, from: stored) == value)
        }
    }

    @Test("a class and its superclass write one dictionary with keys of both types")
    func superclassKeysShareTheDictionary() throws {
        // Several values in one encoding and one decoding, so that each session hands out its kept
        // containers again; a pool of the test's own, which no other test can turn off.
        let pool = EncodingSessionPool()
        for seed in 0..<3 {
            let values = (0..<4).map { Derived(base: "b\(seed)-\($0)", derived: seed * 10 + $0) }
            let stored = try EncodingSession.encodeWithFacts(values, pool: pool).value
            #expect(
                stored
                    == .array(
                        (0..<4).map { .dictionary(["base": .string("b\(seed)-\($0)"), "derived": .int(Int64(seed * 10 + $0))]) }))
            let decoded = try StoredValueDecoder().decode([Derived].self, from: stored)
            #expect(decoded.map(\.base) == values.map(\.base))
            #expect(decoded.map(\.derived) == values.map(\.derived))
        }
    }
}
