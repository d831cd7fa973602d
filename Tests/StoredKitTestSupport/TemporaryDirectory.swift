import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh temporary directory for one test or documentation example, removed when released
/// (or by ``remove()``).
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// let store = try PreferenceStore(.sqlite(at: directory.database))
/// directory.file("prefs.plist").lastPathComponent  //=> "prefs.plist"
/// ```
public final class TemporaryDirectory: Sendable {
    /// Where the directory is.
    ///
    /// ```swift
    /// directory.url.lastPathComponent  //=> "StoredKitTests-6F9619FF-…"
    /// ```
    public let url: URL

    /// Creates the directory under the system temporary directory.
    ///
    /// ```swift
    /// let directory = try TemporaryDirectory()
    /// ```
    public init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "StoredKitTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The directory's path.
    ///
    /// ```swift
    /// directory.path.hasPrefix("/tmp/StoredKitTests-")  //=> true
    /// ```
    public var path: String { url.path }

    /// The SQLite store file most tests use.
    ///
    /// ```swift
    /// directory.database.lastPathComponent  //=> "prefs.sqlite"
    /// ```
    public var database: URL { file("prefs.sqlite") }

    /// A file in the directory (which need not exist).
    ///
    /// ```swift
    /// directory.file("prefs.plist").path == directory.path + "/prefs.plist"  //=> true
    /// ```
    public func file(_ name: String) -> URL { url.appending(path: name) }

    /// The names of the entries in the directory, sorted.
    ///
    /// ```swift
    /// try directory.names()  //=> ["prefs.sqlite", "prefs.sqlite-shm", "prefs.sqlite-wal"]
    /// ```
    public func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// Removes the directory, first making it writable again (a test may have locked it).
    ///
    /// ```swift
    /// directory.remove()
    /// ```
    public func remove() {
        chmod(path, 0o700)
        try? FileManager.default.removeItem(at: url)
    }

    deinit {
        remove()
    }

    /// The permission bits of the file at `path`.
    ///
    /// ```swift
    /// try TemporaryDirectory.mode(of: directory.database.path)  //=> 0o644
    /// ```
    public static func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? Int) ?? -1
    }
}
