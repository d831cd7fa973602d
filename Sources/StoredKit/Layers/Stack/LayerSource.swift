import Foundation

/// Where a file-backed or memory layer reads its values. Read-only by design: a layer's file is never
/// locked, written, created or moved aside, and it is not a ``Backend``.
///
/// ```swift
/// let forced = LayerSource.plist(at: URL(filePath: "/etc/xdg/myapp/forced.plist"))
/// let fixed = LayerSource.memory(["volume": .double(0.3)])
/// ```
public struct LayerSource: Sendable {
    enum Kind: Sendable {
        case plist(path: String)
        case memory([String: StoredValue], name: String)
    }

    let kind: Kind

    /// A plist file (XML or binary, as UserDefaults writes them) whose root dictionary holds the
    /// layer's keys. A missing file is an empty layer; an empty file is a half-written one, so it
    /// counts as corrupt (the last good contents stay). The file is watched for changes.
    ///
    /// ```swift
    /// LayerSource.plist(at: URL(filePath: "/etc/xdg/myapp/defaults.plist"))
    /// ```
    public static func plist(at url: URL) -> LayerSource {
        LayerSource(kind: .plist(path: url.path(percentEncoded: false)))
    }

    /// Fixed values held in memory, named `name` in ``ValueSource`` and diagnostics: for tests and
    /// for values the app computes at start-up.
    ///
    /// ```swift
    /// LayerSource.memory(["volume": .double(0.3)], name: "test policy")
    /// ```
    public static func memory(_ values: [String: StoredValue], name: String = "memory") -> LayerSource {
        LayerSource(kind: .memory(values, name: name))
    }

    /// The file's path, or the memory layer's name.
    ///
    /// ```swift
    /// LayerSource.plist(at: URL(filePath: "/etc/xdg/app.plist")).location  //=> "/etc/xdg/app.plist"
    /// ```
    public var location: String {
        switch kind {
        case .plist(let path): path
        case .memory(_, let name): name
        }
    }

    /// The path to watch, when the layer is a file.
    var filePath: String? {
        if case .plist(let path) = kind { return path }
        return nil
    }

    /// The layer's values now. A missing file is empty; an unreadable or corrupt one throws a
    /// ``StoreError`` naming the file.
    func load() throws -> [String: StoredValue] {
        switch kind {
        case .memory(let values, _):
            return values
        case .plist(let path):
            guard let (data, _) = try FileSystem.read(path) else { return [:] }
            guard case .dictionary(let values) = try PlistCodec.decode(data, path: path) else {
                throw StoreError.corruptFile(
                    path: path, reason: "its root is not a dictionary of keys", quarantinedAt: nil)
            }
            return values
        }
    }
}
