/// Opens a backend, running the migrations it still needs inside its exclusive section.
struct MigrationRunner {
    let migrations: [Migration]
    let durability: Durability
    var whenNewer: NewerSchemaPolicy = .fail

    /// The data to serve, and whether it must be served read-only: it is newer than this app, or
    /// the backend lacks `missingPrivilege` to write.
    struct Opened {
        var snapshot: BackendSnapshot
        var isReadOnly = false
        var missingPrivilege: String? = nil
    }

    /// What the exclusive section found or did.
    private enum Outcome {
        /// Nothing to run: another process migrated first (or even further).
        case current(BackendSnapshot)
        /// Committed; the cleanups are still to run, each with the migration that registered it.
        case migrated(BackendSnapshot, cleanups: [(migration: Migration, cleanup: () throws -> Void)])
    }

    func open(_ backend: any Backend) throws -> Opened {
        let opened = try openWritable(backend)
        guard let missing = backend.missingWritePrivilege else { return opened }
        return Opened(snapshot: opened.snapshot, isReadOnly: true, missingPrivilege: missing)
    }

    /// ``open(_:)`` before asking whether the backend may write: a backend that may only read and
    /// has migrations pending fails the open, naming the first migration (the writing role runs them).
    private func openWritable(_ backend: any Backend) throws -> Opened {
        try validate()
        let loaded = try backend.load()
        // Without migrations the caller does not manage a schema (an inspection tool, say): any version opens.
        guard let latest = migrations.last?.version else { return Opened(snapshot: loaded) }
        if loaded.schemaVersion < latest, let missing = backend.missingWritePrivilege,
            let first = migrations.first(where: { $0.version > loaded.schemaVersion })
        {
            let refusal = StoreError.writeNotPermitted(location: backend.location, key: nil, privilege: missing)
            throw StoreError.migrationFailed(version: first.version, name: first.name, underlying: refusal)
        }
        if loaded.schemaVersion > latest { return try newer(loaded, supported: latest) }
        guard loaded.schemaVersion < latest else { return Opened(snapshot: loaded) }
        let outcome = try backend.withExclusiveAccess { fresh -> (BackendChanges, Outcome) in
            // Another process may have migrated between our load and taking the exclusive section.
            guard fresh.schemaVersion < latest else { return (BackendChanges(), .current(fresh)) }
            return try migrate(fresh, to: latest, admittedBy: backend)
        }
        switch outcome {
        case .current(let fresh):
            let snapshot = BackendSnapshot(
                values: fresh.values, schemaVersion: fresh.schemaVersion, events: loaded.events + fresh.events)
            return fresh.schemaVersion > latest ? try newer(snapshot, supported: latest) : Opened(snapshot: snapshot)
        case .migrated(let migrated, let cleanups):
            // Cleanup of sources (old files, other stores) only after the commit succeeded. The data is
            // committed by now, so a failed cleanup is reported rather than failing the open.
            var events = loaded.events + migrated.events
            for (migration, cleanup) in cleanups {
                do {
                    try cleanup()
                } catch {
                    events.append(.migrationCleanupFailed(version: migration.version, name: migration.name, reason: "\(error)"))
                }
            }
            return Opened(snapshot: BackendSnapshot(values: migrated.values, schemaVersion: latest, events: events))
        }
    }

    /// Runs every migration above `fresh.schemaVersion` on one staged copy; throws before anything is
    /// committed. Each migration's writes pass the checks of a `set` (``Backend/admit(_:forKey:)``):
    /// a value the store cannot hold fails that migration, naming it.
    private func migrate(
        _ fresh: BackendSnapshot, to latest: Int, admittedBy backend: any Backend
    ) throws -> (BackendChanges, Outcome) {
        var context = MigrationContext(values: fresh.values)
        var cleanups: [(migration: Migration, cleanup: () throws -> Void)] = []
        for migration in migrations where migration.version > fresh.schemaVersion {
            let before = context.staging.values
            do {
                try migration.body(&context)
                if let failure = context.staging.failure { throw failure }
                for (key, value) in context.staging.values where before[key] != value {
                    try backend.admit(value, forKey: key)
                }
            } catch {
                throw StoreError.migrationFailed(version: migration.version, name: migration.name, underlying: error)
            }
            cleanups += context.staging.cleanups.map { (migration, $0) }
            context.staging.cleanups.removeAll()
        }
        let staged = context.staging.values
        var changes = BackendChanges(schemaVersion: latest, durability: .immediate)
        for key in Set(fresh.values.keys).union(staged.keys) where fresh.values[key] != staged[key] {
            changes.values[key] = .some(staged[key])
            // Moved, and still the value it had: carried over, not a new write.
            if let origin = context.staging.origins[key], let value = staged[key], fresh.values[origin] == value {
                changes.carriedFrom[key] = origin
            }
        }
        let migrated = BackendSnapshot(values: staged, schemaVersion: latest, events: fresh.events)
        return (changes, .migrated(migrated, cleanups: cleanups))
    }

    /// Data written by a newer app: refused, or served read-only so it is never rewritten.
    private func newer(_ snapshot: BackendSnapshot, supported: Int) throws -> Opened {
        switch whenNewer {
        case .fail: throw StoreError.newerSchemaVersion(found: snapshot.schemaVersion, supported: supported)
        case .openReadOnly: return Opened(snapshot: snapshot, isReadOnly: true)
        }
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
