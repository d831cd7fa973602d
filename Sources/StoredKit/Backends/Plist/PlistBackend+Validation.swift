import Foundation

extension PlistBackend: DateValidatingBackend {
    /// Refuses what a plist file cannot hold: the reserved key `StoredKit.metadata`, and in XML a
    /// date that has no text form there (non-finite, or beyond year ±950 million).
    ///
    /// ```swift
    /// try PlistBackend(at: url).validate(.date(Date(timeIntervalSinceReferenceDate: 1e300)), forKey: "when")
    /// //=> throws: The value for 'when' was refused: date 1e+300 has no XML plist form; use the binary format. …
    /// ```
    public func validate(_ value: StoredValue, forKey key: String) throws {
        try validate(key: key)
        if format == .xml, let date = Self.firstDateWithoutXMLForm(in: value) {
            throw StoreError.refused(
                key: key,
                reason: "date \(date.timeIntervalSinceReferenceDate) has no XML plist form; use the binary format")
        }
    }

    /// The reserved key is refused whatever its value.
    func validate(key: String) throws {
        if key == PlistDocument.metadataKey { throw Self.reservedKeyRefusal }
    }

    /// The checks of a commit: each value as ``validate(_:forKey:)`` and the nesting limit, so a
    /// refusal names its key (and the engine commits the rest), and a sane schema version.
    func validate(_ changes: BackendChanges) throws {
        for (key, value) in changes.values {
            if let value {
                try admit(value, forKey: key)
            } else if key == PlistDocument.metadataKey {
                throw Self.reservedKeyRefusal
            }
        }
        if let version = changes.schemaVersion, version < 0 {
            throw StoreError.unrepresentable(
                key: PlistDocument.metadataKey, reason: "the schema version \(version) is negative")
        }
    }

    private static let reservedKeyRefusal = StoreError.refused(
        key: PlistDocument.metadataKey,
        reason: "the key is reserved for StoredKit's metadata in plist files; choose another key")

    /// The first date in `value` the XML writer has no text for, found with a work list of its
    /// own (no recursion, whatever the depth).
    private static func firstDateWithoutXMLForm(in value: StoredValue) -> Date? {
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .date(let date): if PlistScalarText.dateText(date) == nil { return date }
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let entries): pending.append(contentsOf: entries.values)
            default: break
            }
        }
        return nil
    }
}
