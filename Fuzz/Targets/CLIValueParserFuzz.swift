import Foundation

@testable import StoredKit

// libFuzzer target: the `stored` CLI's value parser (`stored write KEY VALUE --TYPE`), compiled
// in from Sources/stored. The first byte picks the type flag, the rest is the text. It must
// never trap: bad text is a CLIError naming the key.

/// libFuzzer's entry point, called once per input; traps only on a finding.
///
/// ```sh
/// Fuzz/fuzz.sh run cli-value-parser 60  # => fuzz cli-value-parser: 652746 executions in 60 s, corpus 1103 inputs, 0 crashes
/// ```
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCLIValueParser(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: start == nil ? 0 : count)
    guard let selector = bytes.first else { return 0 }
    let types = ValueType.allCases
    let type = types[Int(selector) % types.count]
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    do {
        let value = try ValueParser.parse(text, as: type, key: "fuzz.key")
        if type == .json, StoredValueJSON.encode(value).isEmpty {
            fatalError("parsed JSON \(value) encodes to nothing")  // trap-ok: reports the finding to libFuzzer
        }
    } catch {
        if !error.message.contains("fuzz.key") {
            fatalError("the error does not name the key: \(error.message)")  // trap-ok: reports the finding to libFuzzer
        }
    }
    return 0
}
