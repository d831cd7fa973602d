import Foundation
import StoredKitTestSupport
import Testing

@testable import StoredKit

/// Generated values of every shape through the encoder and back through the decoder. (These
/// seeds first compared the rebuilt encoder, one ``EncodingSession`` per encode, with the one it
/// replaced: the same stored form or the same error for every value.)
@Suite("Encoder round trip on generated values")
struct EncoderRoundTripTests {
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

    @Test("generated records decode back to what was encoded", arguments: seeds)
    func records(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let list = [GeneratedRecord.make(&random), GeneratedRecord.make(&random)]
        try expectRoundTrip(list[0], seed: seed)
        try expectRoundTrip(list[1], seed: seed)
        try expectRoundTrip(list, seed: seed)
        try expectRoundTrip(["one": list[0]], seed: seed)
    }

    /// Encoding, decoding and encoding again gives the first encoding exactly; a value the
    /// encoder refuses is skipped (``coverage()`` shows each kind of refusal is reached).
    private func expectRoundTrip<T: Codable>(_ value: T, seed: UInt64) throws {
        guard let stored = try? StoredValueEncoder().encode(value) else { return }
        let decoded = try StoredValueDecoder().decode(T.self, from: stored)
        let again = Outcome { try StoredValueEncoder().encode(decoded) }
        #expect(again == .stored(Outcome.exact(stored)), "seed \(seed)")
    }

    /// The generator is worth its seeds only if they reach every outcome: values stored, and each
    /// kind of refusal (nil in an array, beyond 64 bits, too deep, a type's own error).
    @Test("the generated values reach every outcome")
    func coverage() {
        var reasons: Set<String> = []
        for seed in Self.seeds {
            var random = SeededGenerator(seed: seed)
            switch Outcome({ try StoredValueEncoder().encode(GeneratedRecord.make(&random)) }) {
            case .stored: reasons.insert("stored")
            case .failed(let message):
                for reason in ["cannot hold nil", "64 bits", "levels", "on purpose"] where message.contains(reason) {
                    reasons.insert(reason)
                }
            }
        }
        #expect(reasons == ["stored", "cannot hold nil", "64 bits", "levels", "on purpose"])
    }
}
