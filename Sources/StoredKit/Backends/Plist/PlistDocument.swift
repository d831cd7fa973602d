import Foundation

/// The contents of a plist store file: the user's keys plus StoredKit's metadata, which
/// lives in the same file under one reserved key so the file stays a single atomic unit.
///
/// The reserved key is written only when there is metadata to keep (a schema version above
/// zero), so a store without migrations is byte-for-byte the dictionary UserDefaults writes.
/// A zero-byte file reads as an empty document, as Foundation treats it: there is nothing
/// in it to lose, and `touch prefs.plist` should give a usable store.
struct PlistDocument: Sendable, Equatable {
    /// The reserved top-level key holding StoredKit's metadata dictionary.
    static let metadataKey = "StoredKit.metadata"
    static let schemaVersionKey = "schemaVersion"

    var values: [String: StoredValue] = [:]
    var schemaVersion = 0
    /// Metadata entries this version does not know, kept so that a newer writer's data survives.
    var otherMetadata: [String: StoredValue] = [:]
    /// Keys equal to another key only up to Unicode normalisation, as another program wrote them:
    /// reads see the first, the root's others are written back unchanged.
    var equivalentKeys = PlistEquivalentKeys()

    init() {}

    /// Parses a store file; throws ``StoreError/corruptFile(path:reason:quarantinedAt:)`` when
    /// the bytes are not a property list or its root is not a dictionary.
    init(decoding data: Data, path: String) throws {
        guard !data.isEmpty else { return }
        let decoded = try PlistCodec.decode(data, path: path, equivalentKeys: &equivalentKeys)
        guard case .dictionary(var root) = decoded else {
            throw StoreError.corruptFile(
                path: path, reason: "the root is \(decoded.typeName), not a dictionary", quarantinedAt: nil)
        }
        if let metadata = root.removeValue(forKey: Self.metadataKey) {
            guard case .dictionary(var entries) = metadata else {
                throw StoreError.corruptFile(
                    path: path, reason: "'\(Self.metadataKey)' is \(metadata.typeName), not a dictionary",
                    quarantinedAt: nil)
            }
            if let version = entries.removeValue(forKey: Self.schemaVersionKey) {
                guard case .int(let number) = version, number >= 0, let schemaVersion = Int(exactly: number) else {
                    throw StoreError.corruptFile(
                        path: path, reason: "the schema version in '\(Self.metadataKey)' is not a non-negative integer",
                        quarantinedAt: nil)
                }
                self.schemaVersion = schemaVersion
            }
            otherMetadata = entries
        }
        values = root
    }

    /// The file's bytes in `format`.
    func encoded(as format: PlistFormat) throws -> Data {
        var root = values
        var metadata = otherMetadata
        if schemaVersion > 0 { metadata[Self.schemaVersionKey] = .int(Int64(schemaVersion)) }
        if !metadata.isEmpty { root[Self.metadataKey] = .dictionary(metadata) }
        return try PlistCodec.encode(.dictionary(root), format: format, hiddenRootEntries: equivalentKeys.hiddenRootEntries)
    }

    /// A write lands on the entry reads show (the hidden spellings stay); a removal removes every
    /// spelling of the key, so that no hidden one shows up in its place when the file is read again.
    mutating func apply(_ changes: BackendChanges) {
        for (key, value) in changes.values {
            values[key] = value
            if value == nil, !equivalentKeys.hiddenRootEntries.isEmpty {
                equivalentKeys.hiddenRootEntries.removeAll { $0.key == key }  // `==` is canonical equivalence
            }
        }
        if let version = changes.schemaVersion { schemaVersion = version }
    }

    func snapshot(events: [StoreEvent] = []) -> BackendSnapshot {
        BackendSnapshot(values: values, schemaVersion: schemaVersion, events: events)
    }
}
