/// What to do when a store file cannot be parsed.
///
/// ```swift
/// let store = try PreferenceStore(.plist(at: url, corruption: .fail))
/// ```
public enum CorruptionPolicy: Sendable, Hashable {
    /// Move the file to `<name>.corrupt-<timestamp>`, open empty and report a ``StoreEvent/quarantined(path:movedTo:reason:)``.
    case quarantine
    /// Throw ``StoreError/corruptFile(path:reason:quarantinedAt:)`` and leave the file alone.
    case fail
}
