import Foundation

/// The kind of a store file, told by its name or, failing that, by its first bytes.
///
/// The CLI, the demo and ``PreferenceStore/init(fileAt:durability:migrations:corruption:whenNewer:)`` use it
/// to pick a backend for a path.
///
/// ```swift
/// StoreFileFormat(detecting: URL(fileURLWithPath: "prefs.sqlite"))  //=> .sqlite
/// StoreFileFormat(detecting: URL(fileURLWithPath: "com.example.app.plist"))  //=> .plist
/// ```
public enum StoreFileFormat: String, Sendable, Hashable {
    /// A property list (XML or binary), the format of Foundation's UserDefaults.
    case plist
    /// An SQLite database.
    case sqlite

    /// Detects the format: `.plist` → plist; `.sqlite`, `.sqlite3`, `.db` → SQLite; anything else
    /// by content (`SQLite format 3`, `bplist00`, `<?xml`/`<plist`). `nil` when it cannot tell
    /// (an unknown extension and a missing, empty or unrecognisable file).
    ///
    /// ```swift
    /// StoreFileFormat(detecting: url)  //=> .sqlite
    /// ```
    public init?(detecting url: URL) {
        switch url.pathExtension.lowercased() {
        case "plist": self = .plist
        case "sqlite", "sqlite3", "db": self = .sqlite
        default:
            let head = Self.firstBytes(of: url)
            if head.starts(with: Data("SQLite format 3\0".utf8)) {
                self = .sqlite
            } else if head.starts(with: Data("bplist00".utf8)) {
                self = .plist
            } else if let text = String(data: head, encoding: .utf8),
                text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<")
            {
                self = .plist
            } else {
                return nil
            }
        }
    }

    static func startsWithBinaryPlistMagic(_ url: URL) -> Bool {
        firstBytes(of: url).starts(with: Data("bplist00".utf8))
    }

    private static func firstBytes(of url: URL) -> Data {
        FileSystem.firstBytes(of: url.path, count: 64)
    }
}

extension PreferenceStore {
    /// Opens the store file at `url`, choosing the backend with ``StoreFileFormat``; a path it
    /// cannot classify (no known extension, no recognisable content) opens as a plist. An existing
    /// binary plist stays binary.
    ///
    /// ```swift
    /// let store = try PreferenceStore(fileAt: URL(fileURLWithPath: "prefs.sqlite"))  // SQLite
    /// ```
    public convenience init(
        fileAt url: URL,
        durability: Durability = .deferred,
        migrations: [Migration] = [],
        corruption: CorruptionPolicy = .quarantine,
        whenNewer: NewerSchemaPolicy = .fail
    ) throws {
        switch StoreFileFormat(detecting: url) ?? .plist {
        case .plist:
            let format: PlistFormat = StoreFileFormat.startsWithBinaryPlistMagic(url) ? .binary : .xml
            try self.init(
                .plist(at: url, format: format, corruption: corruption),
                migrations: migrations, durability: durability, whenNewer: whenNewer)
        case .sqlite:
            try self.init(
                .sqlite(at: url, corruption: corruption), migrations: migrations, durability: durability, whenNewer: whenNewer)
        }
    }
}
