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
    public let version: Int
    /// A name for messages and logs.
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

/// Opens a backend, running the migrations it still needs inside its exclusive section.
struct MigrationRunner {
    let migrations: [Migration]
    let durability: Durability

    func open(_ backend: any Backend) throws -> BackendSnapshot {
        try validate()
        let loaded = try backend.load()
        guard let latest = migrations.last?.version else { return loaded }
        if loaded.schemaVersion > latest {
            throw StoreError.newerSchemaVersion(found: loaded.schemaVersion, supported: latest)
        }
        guard loaded.schemaVersion < latest else { return loaded }
        typealias Outcome = (snapshot: BackendSnapshot, cleanups: [() throws -> Void])
        let (migrated, cleanups) = try backend.withExclusiveAccess { fresh -> (BackendChanges, Outcome) in
            // Another process may have migrated between our load and taking the exclusive section.
            guard fresh.schemaVersion < latest else { return (BackendChanges(), (fresh, [])) }
            var context = MigrationContext(values: fresh.values)
            for migration in migrations where migration.version > fresh.schemaVersion {
                do {
                    try migration.body(&context)
                    if let failure = context.staging.failure { throw failure }
                } catch {
                    throw StoreError.migrationFailed(version: migration.version, name: migration.name, underlying: error)
                }
            }
            let staged = context.staging.values
            var changes = BackendChanges(schemaVersion: latest, durability: .immediate)
            for key in Set(fresh.values.keys).union(staged.keys) where fresh.values[key] != staged[key] {
                changes.values[key] = .some(staged[key])
            }
            return (changes, (BackendSnapshot(values: staged, schemaVersion: latest), context.staging.cleanups))
        }
        // Cleanup of sources (old files, other stores) only after the commit succeeded.
        for cleanup in cleanups { try cleanup() }
        return BackendSnapshot(values: migrated.values, schemaVersion: migrated.schemaVersion, events: loaded.events)
    }

    private func validate() throws {
        var previous = 0
        for migration in migrations {
            guard migration.version > previous else {
                let reason =
                    migration.version <= 0
                    ? "version \(migration.version) of '\(migration.name)' is not positive"
                    : "version \(migration.version) of '\(migration.name)' does not come after \(previous); list migrations once each, in increasing order"
                throw StoreError.invalidMigrations(reason: reason)
            }
            previous = migration.version
        }
    }
}
