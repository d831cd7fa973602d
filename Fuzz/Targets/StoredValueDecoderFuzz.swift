import Foundation

@testable import StoredKit

// libFuzzer target: StoredValueDecoder. The input bytes are read as a StoredValue tree (a tag
// byte per node), which is then decoded as several Codable types covering every container and
// scalar the decoder handles. It must never trap; what decodes must re-encode to a value that
// decodes to the same encoding again.

struct FuzzSettings: Codable {
    enum Theme: String, Codable { case light, dark }
    enum Shape: Codable {
        case circle(radius: Double)
        case square(Int8)
        case none
    }
    var small: Int8?
    var unsigned: UInt16?
    var count: Int
    var big: UInt64?
    var ratio: Float?
    var volume: Double?
    var enabled: Bool?
    var name: String?
    var blob: Data?
    var when: Date?
    var link: URL?
    var identifier: UUID?
    var theme: Theme?
    var shape: Shape?
    var list: [Int]?
    var table: [String: Double]?
    var numbered: [Int: String]?
    var grid: [[Int8]]?
    var child: [FuzzSettings]?
}

class FuzzBase: Codable {
    var title: String = ""
}

final class FuzzDerived: FuzzBase {
    var extra: [String: [Bool]] = [:]

    enum CodingKeys: String, CodingKey { case extra }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        extra = try container.decode([String: [Bool]].self, forKey: .extra)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(extra, forKey: .extra)
        try super.encode(to: container.superEncoder())
    }
}

/// Reads a StoredValue from fuzz bytes: one tag byte per node, then its payload.
extension FuzzInput {
    mutating func string() -> String {
        let length = Int(byte() % 24)
        return String(decoding: (0..<length).map { _ in byte() }, as: UTF8.self)
    }

    mutating func value(depth: Int) -> StoredValue {
        let tag = byte()
        if tag == 0xFF {
            // Deep nesting, around StoredValue.maximumCodableDepth and beyond: `{"child": [...]}` levels
            // (FuzzSettings recurses through them), built without recursion.
            var nested = value(depth: 7)
            for _ in 0..<Int(byte()) { nested = .dictionary(["child": .array([nested])]) }
            return nested
        }
        switch depth > 6 ? tag % 7 : tag % 12 {
        case 0: return .bool(tag & 0x80 != 0)
        case 1: return .int(Int64(Int8(bitPattern: byte())))
        case 2: return .int(Int64(bitPattern: next()))
        case 3: return .uint(next())
        case 4: return .double(Double(bitPattern: next()))
        case 5:
            return .string(
                ["count", "name", "small", "circle", "radius", "square", "_0", "none", "dark"].randomElementBy(byte()) ?? string()
            )
        case 6: return .string(string())
        case 7: return .data(Data((0..<Int(byte() % 20)).map { _ in byte() }))
        case 8: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: next())))
        case 9: return .array((0..<Int(byte() % 6)).map { _ in value(depth: depth + 1) })
        default:
            var dictionary: [String: StoredValue] = [:]
            for _ in 0..<Int(byte() % 8) {
                let key =
                    [
                        "count", "small", "unsigned", "big", "ratio", "volume", "enabled", "name", "blob", "when", "link",
                        "identifier", "theme", "shape", "list", "table", "numbered", "tags", "grid", "child", "title",
                        "extra", "super", "circle", "square", "radius", "_0",
                    ].randomElementBy(byte()) ?? string()
                dictionary[key] = value(depth: depth + 1)
            }
            return .dictionary(dictionary)
        }
    }
}

extension Array {
    /// The element `selector` points at, or nil for selectors past the end (then the caller makes its own).
    func randomElementBy(_ selector: UInt8) -> Element? {
        Int(selector) < count * 2 ? self[Int(selector) % count] : nil
    }
}

/// Decoding must not trap; nothing more is asked of types whose encoding is not canonical.
func checkDecodes<T: Decodable>(_ type: T.Type, _ value: StoredValue) {
    _ = try? StoredValueDecoder().decode(type, from: value)
}

/// What decodes must encode, decode and encode again to the same tree. Documented: the decoder
/// reads some values the encoder refuses to write (an Int128 from a whole double beyond 64 bits),
/// so such a value is only refused when written back.
func checkRoundTrip<T: Codable>(_ type: T.Type, _ value: StoredValue) {
    guard let decoded = try? StoredValueDecoder().decode(type, from: value) else { return }
    expectStableEncoding(decoded) { error in
        if case StoreError.unrepresentable = error { true } else { false }
    }
}

/// libFuzzer's entry point, called once per input; traps only on a finding.
///
/// ```sh
/// Fuzz/fuzz.sh run stored-value-decoder 60  # => fuzz stored-value-decoder: 652746 executions in 60 s, corpus 1103 inputs, 0 crashes
/// ```
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoredValueDecoder(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count: count)
    let value = input.value(depth: 0)
    checkRoundTrip(FuzzSettings.self, value)
    checkRoundTrip([FuzzSettings].self, value)
    checkRoundTrip([String: FuzzSettings.Shape].self, value)
    checkRoundTrip(FuzzDerived.self, value)
    checkRoundTrip([Int8?].self, value)
    checkRoundTrip(Date.self, value)
    checkRoundTrip(Data.self, value)
    checkRoundTrip(URL.self, value)
    checkRoundTrip(Decimal.self, value)
    checkRoundTrip([UInt8].self, value)
    checkRoundTrip(Float16.self, value)
    checkRoundTrip(Int128.self, value)
    // A Set encodes in hash order, which differs between equal sets (input
    // Fuzz/corpus/stored-value-decoder/regression-set-order), so sets are only decoded.
    checkDecodes(Set<String>.self, value)
    checkDecodes([String: Set<Int8>].self, value)
    return 0
}
