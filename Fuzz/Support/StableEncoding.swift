import StoredKit

/// What the coder fuzz targets ask of every value: it encodes, or is refused as `isRefusal`
/// allows; the tree decodes; and the decoded value encodes to the very same tree. Anything else
/// traps, which is how a libFuzzer target reports a finding. Returns the tree and the decoded
/// value, or nil when the encoder refused the value.
///
/// ```swift
/// expectStableEncoding(["a": 1], refusedWhen: { $0 is StoreError })?.encoded  //=> .dictionary(["a": .int(1)])
/// ```
@discardableResult
func expectStableEncoding<T: Codable>(
    _ value: T, refusedWhen isRefusal: (any Error) -> Bool
) -> (encoded: StoredValue, decoded: T)? {
    let encoded: StoredValue
    do {
        encoded = try StoredValueEncoder().encode(value)
    } catch {
        if isRefusal(error) { return nil }
        fatalError("\(T.self) failed to encode: \(error)")  // trap-ok: reports the finding to libFuzzer
    }
    do {
        let decoded = try StoredValueDecoder().decode(T.self, from: encoded)
        let again = try StoredValueEncoder().encode(decoded)
        if again != encoded {
            fatalError("\(T.self) encoded \(encoded), then \(again) after decoding")  // trap-ok: reports the finding to libFuzzer
        }
        return (encoded, decoded)
    } catch {
        fatalError("\(T.self) \(encoded) did not decode and encode again: \(error)")  // trap-ok: reports the finding to libFuzzer
    }
}
