import Foundation

/// StoredKit's own property-list codec: XML and binary `bplist00`, read and written directly between
/// bytes and ``StoredValue`` without Foundation's `Any`-based `PropertyListSerialization`.
///
/// ```swift
/// let data = try PlistCodec.encode(.dictionary(["volume": .double(0.5)]), format: .xml)
/// try PlistCodec.decode(data, path: "/tmp/app.plist")  //=> .dictionary(["volume": .double(0.5)])
/// ```
public enum PlistCodec {
    /// The deepest nesting a plist file may hold, its root counted: a store's root dictionary
    /// around values of up to ``StoredValue/maximumDepth``, every array and dictionary counted
    /// (an empty one too, `<array/>` as `<array></array>`). XML and binary, reading and writing,
    /// apply it alike. Readers refuse deeper files before descending, writers deeper values, so
    /// neither can exhaust the stack.
    ///
    /// ```swift
    /// PlistCodec.maximumDepth  //=> 513
    /// ```
    public static let maximumDepth = StoredValue.maximumDepth + 1

    /// A file nested deeper than ``maximumDepth``: valid (Foundation and plistlib may read it), so
    /// reported as unsupported and left in place, never called corrupt or moved aside.
    static func tooDeep(path: String, at offset: Int) -> StoreError {
        .unsupportedFile(
            path: path,
            reason: "a value \(StoredValue.tooDeepPhrase) (at byte \(offset))",
            advice: "StoredKit reads values nested up to \(StoredValue.maximumDepth) levels (StoredValue.maximumDepth); "
                + "flatten the value with the program that wrote the file, or keep using that program for it.")
    }

    /// Parses a plist file, detecting the format: a `bplist` header means binary, anything else XML.
    ///
    /// Throws ``StoreError/corruptFile(path:reason:quarantinedAt:)`` naming `path` and the byte where
    /// the content stopped making sense; malformed, truncated or cyclic input never traps.
    ///
    /// ```swift
    /// try PlistCodec.decode(Data("<plist><integer>7</integer>".utf8), path: "a.plist")
    /// //=> throws: 'a.plist' is corrupt (unexpected end of file at byte 27; expected </plist>). ...
    /// ```
    public static func decode(_ data: Data, path: String) throws -> StoredValue {
        var equivalentKeys = PlistEquivalentKeys()
        return try decode(data, path: path, equivalentKeys: &equivalentKeys)
    }

    /// ``decode(_:path:)``, also returning an ``StoreEvent/equivalentKeys(path:shown:hidden:)`` for
    /// each dictionary key equal to an earlier one only up to Unicode normalisation: the value keeps
    /// the first, so a tool that copies the data refuses such a file rather than drop the other.
    ///
    /// ```swift
    /// let (value, collisions) = try PlistCodec.decodeReportingEquivalentKeys(data, path: "in.plist")
    /// collisions.isEmpty  //=> false for a file holding both "caf\u{E9}" and "cafe\u{301}"
    /// ```
    public static func decodeReportingEquivalentKeys(
        _ data: Data, path: String
    ) throws -> (value: StoredValue, equivalentKeys: [StoreEvent]) {
        var equivalentKeys = PlistEquivalentKeys()
        let value = try decode(data, path: path, equivalentKeys: &equivalentKeys)
        return (value, equivalentKeys.events(path: path))
    }

    /// ``decode(_:path:)``, also collecting dictionary keys equal only up to Unicode normalisation.
    static func decode(_ data: Data, path: String, equivalentKeys: inout PlistEquivalentKeys) throws -> StoredValue {
        try data.withUnsafeBytes { (raw) throws(StoreError) -> StoredValue in
            let bytes = raw.bindMemory(to: UInt8.self)
            if PlistBinaryReader.hasMagic(bytes) {
                return try PlistBinaryReader.read(bytes, path: path, equivalentKeys: &equivalentKeys)
            }
            return try PlistXMLReader.read(bytes, path: path, equivalentKeys: &equivalentKeys)
        }
    }

    /// Serialises `value` with dictionary keys sorted, so equal values give identical files.
    ///
    /// XML keeps dates to whole seconds (Foundation's parser rejects fractions) and writes every NaN as
    /// `nan`; binary is exact. Throws ``StoreError/unrepresentable(key:reason:)`` for containers nested
    /// deeper than ``maximumDepth``, and in XML for dates it has no text for.
    ///
    /// ```swift
    /// let data = try PlistCodec.encode(.array([.bool(true)]), format: .binary)
    /// data.count  //=> 45
    /// ```
    public static func encode(_ value: StoredValue, format: PlistFormat) throws -> Data {
        try encode(value, format: format, hiddenRootEntries: [])
    }

    /// ``encode(_:format:)`` writing `hiddenRootEntries` into the root dictionary too, each right
    /// after the key it hides behind, so a file read with them gives them back byte for byte.
    static func encode(
        _ value: StoredValue, format: PlistFormat, hiddenRootEntries: [PlistEquivalentKeys.Entry]
    ) throws -> Data {
        switch format {
        case .xml: Data(try PlistXMLWriter.encode(value, hiddenRootEntries: hiddenRootEntries))
        case .binary: Data(try PlistBinaryWriter.encode(value, hiddenRootEntries: hiddenRootEntries))
        }
    }
}
