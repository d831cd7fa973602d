import Foundation
import Testing

@testable import StoredKit

/// The rebuilt encoder (one ``EncodingSession`` per encode) against the one it replaces, on
/// generated values of every shape: the same stored form, or the same error.
@Suite("Encoder: new against old")
struct EncoderDifferentialTests {
    /// What an encoding produced, compared exactly: cases, integer kinds and bit patterns.
    enum Outcome: Equatable {
        case stored(String)
        case failed(String)

        init(_ encode: () throws -> StoredValue) {
            do {
                self = .stored(Self.exact(try encode()))
            } catch {
                self = .failed("\(type(of: error)): \(error)")
            }
        }

        /// A rendering that tells apart what `==` equates (`.int(3)` and `.uint(3)`), with
        /// dictionary keys in order.
        static func exact(_ value: StoredValue) -> String {
            switch value {
            case .bool(let value): "b\(value)"
            case .int(let value): "i\(value)"
            case .uint(let value): "u\(value)"
            case .double(let value): "d\(value.bitPattern)"
            case .string(let value): "s\(value.debugDescription)"
            case .data(let value): "x\(value.base64EncodedString())"
            case .date(let value): "t\(value.timeIntervalSinceReferenceDate.bitPattern)"
            case .array(let values): "(" + values.map(exact).joined(separator: ",") + ")"
            case .dictionary(let values):
                "{"
                    + values.sorted { $0.key < $1.key }.map { "\($0.key.debugDescription)=\(exact($0.value))" }.joined(
                        separator: ";") + "}"
            }
        }
    }

    static let seeds: [UInt64] = Array(1...400)

    @Test("generated records encode alike", arguments: seeds)
    func records(seed: UInt64) {
        var random = SeededValueGenerator(seed: seed)
        let record = GeneratedRecord.make(&random)
        #expect(
            Outcome { try StoredValueEncoder().encode(record) } == Outcome { try EncodingSession.encode(record) }, "seed \(seed)")
        let list = [record, GeneratedRecord.make(&random)]
        #expect(Outcome { try StoredValueEncoder().encode(list) } == Outcome { try EncodingSession.encode(list) }, "seed \(seed)")
        let table = ["one": record]
        #expect(
            Outcome { try StoredValueEncoder().encode(table) } == Outcome { try EncodingSession.encode(table) }, "seed \(seed)")
    }

    /// The generator is worth its seeds only if they reach every outcome: values stored, and each
    /// kind of refusal (nil in an array, beyond 64 bits, too deep, a type's own error).
    @Test("the generated values reach every outcome")
    func coverage() {
        var reasons: Set<String> = []
        for seed in Self.seeds {
            var random = SeededValueGenerator(seed: seed)
            switch Outcome({ try EncodingSession.encode(GeneratedRecord.make(&random)) }) {
            case .stored: reasons.insert("stored")
            case .failed(let message):
                for reason in ["cannot hold nil", "64 bits", "levels", "on purpose"] where message.contains(reason) {
                    reasons.insert(reason)
                }
            }
        }
        #expect(reasons == ["stored", "cannot hold nil", "64 bits", "levels", "on purpose"])
    }

    @Test("top-level values of every kind encode alike")
    func topLevel() {
        func check<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(
                Outcome { try StoredValueEncoder().encode(value) } == Outcome { try EncodingSession.encode(value) },
                sourceLocation: sourceLocation)
        }
        check(3)
        check("text")
        check(String?.none)
        check(Int?.some(4))
        check([Int?.none])
        check(Set([3, 1, 2]))
        check([UInt64.max])
        check(Int128(UInt64.max) + 1)
        check(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
        check([UUID?.none])
        check(GeneratedRecord.Mode.dark)
        check(GeneratedRecord.Shape.labelled("x", count: 2))
        check(GeneratedThrower(fails: true))
        check(GeneratedThrower(fails: false))
        check([GeneratedThrower(fails: true)])
        check(GeneratedHandWritten(numbers: [1, 2], label: "l", caught: true, switched: false))
        check(GeneratedHandWritten(numbers: [], label: "l", caught: false, switched: true))
        check(StoredValue.array([.int(1), .dictionary([:])]))
        check(SidebarCustomization.twentyTabs())
        check([[String: Int?]]([["a": nil, "b": 1]]))
        for length in [126, 127, 128, 129, 140] {
            check(GeneratedChain.make(length: length))
            check([GeneratedChain.make(length: length)])
        }
    }
}
