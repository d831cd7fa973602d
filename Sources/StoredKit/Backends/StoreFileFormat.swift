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

    /// The file extensions StoredKit knows (lowercase, without the dot) and the format each names.
    /// Every part that picks a backend by a file's name asks this one list.
    ///
    /// ```swift
    /// StoreFileFormat.fileExtensions["sqlite3"]  //=> .sqlite
    /// ```
    public static let fileExtensions: [String: StoreFileFormat] = [
        "plist": .plist, "sqlite": .sqlite, "sqlite3": .sqlite, "db": .sqlite,
    ]

    /// Detects the format: a known extension (``fileExtensions``) decides; anything else is told
    /// by content (``init(content:)``). `nil` when it cannot tell (an unknown extension and a
    /// missing, empty or unrecognisable file).
    ///
    /// ```swift
    /// StoreFileFormat(detecting: url)  //=> .sqlite
    /// ```
    public init?(detecting url: URL) {
        if let known = Self.fileExtensions[url.pathExtension.lowercased()] {
            self = known
        } else {
            self.init(content: FileSystem.firstBytes(of: url.path, count: 64))
        }
    }

    /// Tells the format from a file's first bytes: the SQLite header, the binary plist magic
    /// (``PlistFormat/init(content:)``), or text whose first non-blank character is `<` (an XML
    /// plist). `nil` for anything else, such as JSON.
    ///
    /// ```swift
    /// StoreFileFormat(content: Data("<?xml version=\"1.0\"?>".utf8))  //=> .plist
    /// StoreFileFormat(content: Data("{\"a\": 1}".utf8))  //=> nil
    /// ```
    public init?(content head: some Collection<UInt8>) {
        if head.starts(with: "SQLite format 3\0".utf8) {
            self = .sqlite
        } else if PlistFormat(content: head) == .binary
            || head.first(where: { !" \t\r\n".utf8.contains($0) }) == UInt8(ascii: "<")
        {
            self = .plist
        } else {
            return nil
        }
    }
}

extension PlistFormat {
    /// The format of plist bytes as they are: binary when they start with the `bplist` magic (of
    /// any version: the reader names an unsupported one), XML otherwise.
    ///
    /// ```swift
    /// PlistFormat(content: try Data(contentsOf: url))  //=> .binary
    /// ```
    public init(content: some Collection<UInt8>) {
        self = content.starts(with: Self.binaryMagic) ? .binary : .xml
    }

    /// The format of the plist file at `path` as it is now (XML when it is missing or empty).
    ///
    /// ```swift
    /// PlistFormat(ofFileAt: "/home/me/.config/com.example.app.plist")  //=> .xml
    /// ```
    public init(ofFileAt path: String) {
        self.init(content: FileSystem.firstBytes(of: path, count: 8))
    }

    /// The first bytes of every binary property list, of any version.
    static let binaryMagic = Array("bplist".utf8)
    /// The header of the only version in use, which StoredKit reads and writes.
    static let binaryHeader = binaryMagic + Array("00".utf8)
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
            let format = PlistFormat(ofFileAt: url.path)
            try self.init(
                .plist(at: url, format: format, corruption: corruption),
                migrations: migrations, durability: durability, whenNewer: whenNewer)
        case .sqlite:
            try self.init(
                .sqlite(at: url, corruption: corruption), migrations: migrations, durability: durability, whenNewer: whenNewer)
        }
    }
}
