/// The on-disk encoding of a property-list store file.
///
/// Both formats hold the same ``StoredValue`` tree and are read and written by StoredKit's own codec.
/// Reading detects the format from the file's first bytes, so this choice matters only when writing.
///
/// ```swift
/// let store = try PreferenceStore(.plist(at: URL(fileURLWithPath: "/tmp/app.plist"), format: .binary))
/// PlistFormat.xml == .binary  //=> false
/// ```
public enum PlistFormat: Sendable, Hashable {
    /// Human-readable XML laid out as Foundation writes it (the format `UserDefaults` uses on Linux).
    ///
    /// Dates keep whole seconds only (Foundation's XML parser rejects fractions) and every NaN is written
    /// as `nan`; everything else round-trips exactly.
    ///
    /// ```swift
    /// let backend = PlistBackend.plist(at: URL(fileURLWithPath: "/tmp/app.plist"), format: .xml)
    /// backend.format  //=> .xml
    /// ```
    case xml
    /// Compact binary `bplist00`, exact for every value including fractional dates and NaN payloads.
    ///
    /// ```swift
    /// let backend = PlistBackend.plist(at: URL(fileURLWithPath: "/tmp/app.plist"), format: .binary)
    /// backend.format  //=> .binary
    /// ```
    case binary
}
