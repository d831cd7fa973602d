import Foundation
import StoredKit

/// Property-list bytes to and from a store's values, with StoredKit's own plist codec.
///
/// ```swift
/// let data = try PlistBytes.encode(["volume": .double(0.8)], format: .xml)
/// try PlistBytes.decode(data, source: "backup.plist")  //=> ["volume": 0.8]
/// ```
enum PlistBytes {
    static func encode(_ values: [String: StoredValue], format: PlistFormat) throws -> Data {
        try PlistCodec.encode(.dictionary(values), format: format)
    }

    static func decode(_ data: Data, source: String) throws -> [String: StoredValue] {
        let root: StoredValue
        do {
            root = try PlistCodec.decode(data, path: source)
        } catch StoreError.corruptFile(_, let reason, _) {
            throw CLIError(
                .invalidInput,
                "'\(source)' is not a valid plist (\(reason)). Fix the file or export it again; the store was not changed.")
        }
        guard case .dictionary(var values) = root else {
            throw CLIError(
                .invalidInput,
                "'\(source)' holds a plist \(root.typeName), not a dictionary of keys. Import a file made by 'stored export'.")
        }
        values["StoredKit.metadata"] = nil  // a store's own bookkeeping is not a user key
        return values
    }

    /// The first value (by key) that a plist in `format` would not give back exactly, and what it
    /// would give back instead. XML keeps dates to whole seconds and every NaN as `nan`; binary is exact.
    ///
    /// ```swift
    /// try PlistBytes.firstInexactValue(["t": .date(Date(timeIntervalSince1970: 0.5))], format: .xml)?.key  //=> "t"
    /// ```
    static func firstInexactValue(
        _ values: [String: StoredValue], format: PlistFormat
    ) throws -> (key: String, value: StoredValue, readBack: StoredValue?)? {
        guard format == .xml, !values.isEmpty else { return nil }
        let readBack = try decode(encode(values, format: format), source: "XML round trip")
        for (key, value) in values.sorted(by: { $0.key < $1.key }) where readBack[key] != value {
            return (key, value, readBack[key])
        }
        return nil
    }

    /// Fails (status 3) when the XML plist `store` cannot hold `values` exactly.
    static func requireExact(_ values: [String: StoredValue], in store: StoreLocation, format: PlistFormat) throws {
        guard let loss = try firstInexactValue(values, format: format) else { return }
        throw CLIError(
            .invalidInput,
            "Key '\(loss.key)' cannot be kept exactly in the XML plist '\(store.path)': \(describe(loss)). "
                + "Use an SQLite store or a binary plist ('stored convert' with --format binary); nothing was changed.")
    }

    static func describe(_ loss: (key: String, value: StoredValue, readBack: StoredValue?)) -> String {
        "\(ValuePrinter.oneLine(loss.value)) would become \(loss.readBack.map(ValuePrinter.oneLine) ?? "nothing")"
    }

}
