import Foundation
import Testing

@testable import StoredKit

/// The encoder copies a dictionary laid out for a known sequence of keys (``DictionaryShape``)
/// instead of hashing every key again; these check that the copy is always the dictionary the
/// key-by-key path would build.
@Suite("Dictionary shapes in the encoder")
struct DictionaryShapeTests {
    /// Three optionals: eight shapes of one key type, more than one key type keeps.
    struct Sparse: Codable, Equatable {
        var id: Int
        var a: String?
        var b: Int?
        var c: Bool?

        static func all(seed: Int) -> [Sparse] {
            (0..<8).map { bits in
                Sparse(
                    id: seed * 8 + bits, a: bits & 1 == 0 ? nil : "a\(bits)", b: bits & 2 == 0 ? nil : bits,
                    c: bits & 4 == 0 ? nil : true)
            }
        }
    }

    /// Writes `id` twice (the later wins) and removes `gone` after writing it.
    struct Rewriting: Encodable {
        var id: Int

        enum Keys: String, CodingKey { case id, gone, kept }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(-1, forKey: .id)
            try container.encode("x", forKey: .gone)
            try container.encode(true, forKey: .kept)
            try container.encode(id, forKey: .id)
            try container.encodeNil(forKey: .gone)
        }
    }

    /// Keys taken from data, through one key type: a different set every time.
    struct DataKeyed: Encodable {
        var entries: [(String, Int)]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: StoredStringKey.self)
            for (key, value) in entries { try container.encode(value, forKey: StoredStringKey(key)) }
        }
    }

    @Test func everyShapeOfAStructEncodesAsItsOwnDictionaryInAnyOrder() throws {
        for seed in 0..<4 {
            var values = Sparse.all(seed: seed)
            if seed.isMultiple(of: 2) { values.reverse() }
            let encoded = try StoredValueEncoder().encode(values)
            #expect(try StoredValueDecoder().decode([Sparse].self, from: encoded) == values)
            for value in values {
                let alone = try StoredValueEncoder().encode(value)
                var expected: [String: StoredValue] = ["id": .int(Int64(value.id))]
                if let a = value.a { expected["a"] = .string(a) }
                if let b = value.b { expected["b"] = .int(Int64(b)) }
                if let c = value.c { expected["c"] = .bool(c) }
                #expect(alone == .dictionary(expected))
            }
        }
    }

    @Test func aRewrittenKeyKeepsTheLaterValueAndARemovedKeyStaysRemoved() throws {
        for id in 0..<3 {
            let encoded = try StoredValueEncoder().encode([Rewriting(id: id), Rewriting(id: id + 10)])
            #expect(
                encoded
                    == .array([
                        .dictionary(["id": .int(Int64(id)), "kept": .bool(true)]),
                        .dictionary(["id": .int(Int64(id + 10)), "kept": .bool(true)]),
                    ]))
        }
    }

    @Test func keysFromDataGetTheirOwnDictionaryEveryTime() throws {
        for round in 0..<6 {
            let count = [1, 3, 3, 70, 2, 200][round]
            let entries = (0..<count).map { ("k\(round)-\($0)", $0) }
            let encoded = try StoredValueEncoder().encode(DataKeyed(entries: entries))
            #expect(encoded == .dictionary(Dictionary(uniqueKeysWithValues: entries.map { ($0.0, .int(Int64($0.1))) })))
        }
        // The same keys in another order are the same dictionary.
        let forward = try StoredValueEncoder().encode(DataKeyed(entries: [("x", 1), ("y", 2)]))
        let backward = try StoredValueEncoder().encode(DataKeyed(entries: [("y", 2), ("x", 1)]))
        #expect(forward == backward)
    }

    @Test func aShapeIsOnlyMadeForDistinctKeysWithinTheLimit() {
        #expect(DictionaryShape(keys: ["a", "b"]) != nil)
        #expect(DictionaryShape(keys: ["a", "a"]) == nil)
        #expect(DictionaryShape(keys: []) == nil)
        #expect(DictionaryShape(keys: (0...DictionaryShape.maximumKeys).map { "k\($0)" }) == nil)
    }
}
