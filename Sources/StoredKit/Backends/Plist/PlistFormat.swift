// STAND-IN: replaced by the real codec helper's file; not delivered.

/// The encoding of a property-list file.
///
/// ```swift
/// let backend = PlistBackend.plist(at: url, format: .binary)
/// ```
public enum PlistFormat: Sendable, Hashable {
    /// Apple's XML property list, readable in a text editor.
    case xml
    /// Apple's binary property list (`bplist00`).
    case binary
}
