import Foundation
import StoredKit

/// Property-list bytes to and from a store's values, through a ``PlistBackend`` on a temporary
/// file: StoredKit's plist codec is internal, and the backend is its public face.
///
/// ```swift
/// let data = try PlistBytes.encode(["volume": .double(0.8)], format: .xml)
/// try PlistBytes.decode(data, source: "backup.plist")  //=> ["volume": 0.8]
/// ```
enum PlistBytes {
    static func encode(_ values: [String: StoredValue], format: PlistFormat) throws -> Data {
        try withScratchFile { url in
            let backend = PlistBackend(at: url, format: format, corruption: .fail)
            // The backend writes only when something changes, so an empty store is written as
            // the removal of a placeholder.
            let placeholder = "stored.export.placeholder"
            let changes: [String: StoredValue?] = values.isEmpty ? [placeholder: .bool(true)] : values.mapValues { $0 }
            _ = try backend.commit(BackendChanges(values: changes))
            if values.isEmpty { _ = try backend.commit(BackendChanges(values: [placeholder: nil])) }
            return try Data(contentsOf: url)
        }
    }

    static func decode(_ data: Data, source: String) throws -> [String: StoredValue] {
        try withScratchFile { url in
            try data.write(to: url)
            do {
                return try PlistBackend(at: url, corruption: .fail).load().values
            } catch StoreError.corruptFile(_, let reason, _) {
                throw CLIError(
                    .invalidInput,
                    "'\(source)' is not a valid plist (\(reason)). Fix the file or export it again; the store was not changed.")
            }
        }
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

    private static func withScratchFile<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stored-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory.appendingPathComponent("scratch.plist"))
    }
}
