import Foundation
import StoredKit

/// Property-list bytes to and from a store's values, with StoredKit's own plist codec.
///
/// ```swift
/// let data = try PlistBytes.encode(["volume": .double(0.8)], format: .xml)
/// try PlistBytes.decode(data, source: "backup.plist")  //=> ["volume": 0.8]
/// ```
enum PlistBytes {
    /// Refuses (status 3) a reserved key: a plist holding `StoredKit.metadata` as a user key is a
    /// file StoredKit itself would call corrupt, so it is never written.
    static func encode(_ values: [String: StoredValue], format: PlistFormat) throws -> Data {
        for key in PreferenceStore.reservedKeys where values[key] != nil {
            throw CLIError(
                .invalidInput,
                "Key '\(key)' is reserved for StoredKit's metadata in plist files: a plist holding it as a key would "
                    + "not open as a store, so nothing was written. Rename the key first "
                    + "('stored rename STORE \(key) NEW-NAME') or export as JSON.")
        }
        return try PlistCodec.encode(.dictionary(values), format: format)
    }

    static func decode(_ data: Data, source: String) throws -> [String: StoredValue] {
        let root: StoredValue
        do {
            let decoded = try PlistCodec.decodeReportingEquivalentKeys(data, path: source)
            try requireDistinctKeys(decoded.equivalentKeys, command: "import")
            root = decoded.value
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

    /// Refuses (status 3) data holding two keys that differ only in their Unicode form: a copy
    /// made through a dictionary would keep one and silently drop the other.
    static func requireDistinctKeys(_ events: [StoreEvent], command: String) throws(CLIError) {
        if let event = events.first(where: \.isEquivalentKeys) {
            throw CLIError(.invalidInput, "\(event) 'stored \(command)' cannot carry both spellings, so nothing was written.")
        }
    }

    /// Refuses (status 3) a store with a row nested deeper than StoredKit reads (valid JSON another
    /// program wrote into SQLite or PostgreSQL): a copy would silently leave that key out, where a
    /// plist file that deep is refused whole, as `stored check` calls both.
    static func requireNoTooDeepValues(_ events: [StoreEvent], in path: String, command: String) throws(CLIError) {
        let keys = events.compactMap { event -> String? in
            guard case .decodingFailed(let key, _, StoredValueJSON.tooDeepFound) = event else { return nil }
            return key
        }
        guard let first = keys.min() else { return }
        throw CLIError(
            .invalidInput,
            "'\(path)' is intact, but key '\(first)'\(keys.count > 1 ? " and \(keys.count - 1) more" : "") holds a value "
                + "\(StoredValue.tooDeepPhrase), which StoredKit does not read; 'stored \(command)' would leave it out, "
                + "so nothing was written. Flatten it with the program that wrote it, or delete it with 'stored delete'.")
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

    /// Fails (status 3) when the XML plist at `path` cannot hold `values` exactly: a date with a
    /// fraction of a second, a NaN payload, or a character XML 1.0 forbids even as a reference
    /// (StoredKit and Foundation read those back, Python's plistlib and XML tools do not).
    static func requireExact(_ values: [String: StoredValue], inXMLPlistAt path: String, alternative: String) throws {
        let loss: String
        if let inexact = try firstInexactValue(values, format: .xml) {
            loss = "Key '\(inexact.key)' cannot be kept exactly in the XML plist '\(path)': \(describe(inexact))"
        } else if let (key, character) = firstForbiddenCharacter(in: values) {
            loss =
                "Key '\(key)' cannot be written to the XML plist '\(path)': it holds \(character), which XML 1.0 "
                + "forbids even as a character reference"
        } else {
            return
        }
        throw CLIError(.invalidInput, "\(loss). \(alternative); nothing was changed.")
    }

    /// Fails (status 3) when the plist `store` cannot hold `values` exactly (only XML can fail).
    static func requireExact(_ values: [String: StoredValue], in store: StoreLocation, format: PlistFormat) throws {
        guard format == .xml else { return }
        try requireExact(
            values, inXMLPlistAt: store.path,
            alternative: "Use an SQLite store or a binary plist ('stored convert' with --format binary)")
    }

    /// The first key (sorted) whose name or value holds a character XML 1.0 cannot hold at all:
    /// controls other than tab, LF and CR, and U+FFFE / U+FFFF.
    static func firstForbiddenCharacter(in values: [String: StoredValue]) -> (key: String, character: String)? {
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            var pending: [StoredValue] = [.string(key), value]  // a worklist, so no depth reaches the stack
            while let next = pending.popLast() {
                switch next {
                case .string(let text):
                    if let scalar = text.unicodeScalars.first(where: isForbiddenInXML) {
                        return (key, "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4))
                    }
                case .array(let items): pending.append(contentsOf: items)
                case .dictionary(let entries):
                    for (name, item) in entries { pending.append(.string(name)); pending.append(item) }
                default: break
                }
            }
        }
        return nil
    }

    private static func isForbiddenInXML(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0..<0x20, 0xFFFE, 0xFFFF: true
        default: false
        }
    }

    static func describe(_ loss: (key: String, value: StoredValue, readBack: StoredValue?)) -> String {
        "\(ValuePrinter.oneLine(loss.value)) would become \(loss.readBack.map(ValuePrinter.oneLine) ?? "nothing")"
    }

}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
