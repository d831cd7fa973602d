/// One versioned step that moves stored data forward with the app.
///
/// Give a store every migration the app has ever had. At open, those newer than the stored
/// schema version run in version order on a staged copy, and their results and the new version
/// are committed in one atomic write before the first value is served. If one throws, nothing
/// is committed and the next open tries again, so each step must be safe to run twice.
///
/// ```swift
/// let store = try PreferenceStore(.sqlite(at: url), migrations: [
///     Migration(version: 1, "rename tabs key") { m in try m.renameKey("tabs", to: "sidebar") },
///     Migration(version: 2, "drop legacy flags") { m in m.removeAll { key, _ in key.hasPrefix("legacy.") } },
/// ])
/// store.schemaVersion  //=> 2
/// ```
public struct Migration: Sendable {
    /// The schema version this step produces; versions are positive and strictly increasing.
    ///
    /// ```swift
    /// migration.version  //=> 2
    /// ```
    public let version: Int
    /// A name for messages and logs.
    ///
    /// ```swift
    /// migration.name  //=> "rename tabs key"
    /// ```
    public let name: String
    let body: @Sendable (inout MigrationContext) throws -> Void

    /// Creates a migration step.
    ///
    /// ```swift
    /// Migration(version: 3, "volume is a percentage") { m in
    ///     try m.transform("volume", from: Double.self, to: Int.self) { Int($0 * 100) }
    /// }
    /// ```
    public init(version: Int, _ name: String, _ body: @escaping @Sendable (inout MigrationContext) throws -> Void) {
        self.version = version
        self.name = name
        self.body = body
    }
}
