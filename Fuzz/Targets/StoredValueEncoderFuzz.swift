import Foundation
import StoredKit
import StoredKitTestSupport

// libFuzzer target: StoredValueEncoder. The input bytes drive the tests' value generator
// (GeneratedRecord, in Tests/StoredKitTestSupport): which optional properties are set, to what,
// how many children. Each value is encoded, decoded back and encoded again, which must give the
// same tree (the encoder round-trip tests' check, on the fuzzer's values). An enum at the top
// level must also decode equal (where it holds no NaN, which equals nothing). A value the encoder
// refuses (an Int128 beyond 64 bits, nil in an array, nesting beyond the limit, a type's own
// error) must be refused with StoreError, never trap.

/// A deeply nested value: `levels` arrays around a record, which must encode up to the nesting limit and be refused beyond.
func nested(_ record: GeneratedRecord, levels: Int) -> StoredValue? {
    var value = try? StoredValueEncoder().encode([record])
    for _ in 0..<levels { value = value.map { .array([$0]) } }
    return value
}

extension StoredValue {
    /// Whether a NaN is anywhere in the tree (then the decoded value cannot equal the original).
    var containsNaN: Bool {
        switch self {
        case .double(let value): value.isNaN
        case .array(let values): values.contains { $0.containsNaN }
        case .dictionary(let values): values.values.contains { $0.containsNaN }
        default: false
        }
    }
}

func checkRoundTrip<T: Codable>(_ value: T) {
    expectStableEncoding(value, refusedWhen: { $0 is StoreError })
}

/// The same, and the decoded value equals the original.
func checkRoundTrip<T: Codable & Equatable>(_ value: T) {
    guard let result = expectStableEncoding(value, refusedWhen: { $0 is StoreError }) else { return }
    if !result.encoded.containsNaN, result.decoded != value {
        fatalError("\(T.self) decoded unequal from \(result.encoded)")  // trap-ok: reports the finding to libFuzzer
    }
}

/// libFuzzer's entry point, called once per input; traps only on a finding.
///
/// ```sh
/// Fuzz/fuzz.sh run stored-value-encoder 60  # => fuzz stored-value-encoder: N executions in 60 s, corpus C inputs, 0 crashes
/// ```
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoredValueEncoder(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count: count)
    let record = GeneratedRecord.make(&input)
    checkRoundTrip(record)
    checkRoundTrip([record, GeneratedRecord.make(&input, depth: 1)])
    checkRoundTrip(["only": record])
    checkRoundTrip(record.shape)
    checkRoundTrip(record.mode)
    if let tree = nested(record, levels: Int(input.byte())) {
        checkRoundTrip(tree)
    }
    return 0
}
