import Synchronization

/// The backend of a store opened read-only: reads and watching pass through, writes are refused.
///
/// It sits between the store and the real backend so every write path (`set`, `flush`,
/// `transaction`, `update`) meets the same refusal, and the file is never rewritten. A store is
/// read-only when its data is newer than the app (``NewerSchemaPolicy/openReadOnly``) or when its
/// backend may only read (``Backend/missingWritePrivilege``, `missingPrivilege` here).
final class ReadOnlyBackend: ReloadingBackend {
    let base: any Backend
    /// What the backend's role lacks to write; `nil` when the store is read-only for newer data.
    let missingPrivilege: String?

    init(_ base: any Backend, missingPrivilege: String?) {
        self.base = base
        self.missingPrivilege = missingPrivilege
    }

    var location: String { base.location }

    var missingWritePrivilege: String? { missingPrivilege }

    func load() throws -> BackendSnapshot { try base.load() }

    func validate(_ value: StoredValue, forKey key: String) throws { try base.validate(value, forKey: key) }

    func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        guard changes.isEmpty else { throw refusal(changes) }
        return nil
    }

    /// Runs `body` on freshly loaded data without taking the backend's exclusion (nothing will
    /// be written); a body that wants to write is refused.
    func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        let (changes, result) = try body(try base.load())
        guard changes.isEmpty else { throw refusal(changes) }
        return result
    }

    func startWatching(_ onChange: @escaping @Sendable () -> Void) throws { try base.startWatching(onChange) }

    /// A read-only replica reloads on its syncer's queue as a writable one does.
    func startWatching(
        _ onChange: @escaping @Sendable () -> Void, reloadingNow: @escaping @Sendable () -> Void
    ) throws {
        guard let reloading = base as? any ReloadingBackend else { return try base.startWatching(onChange) }
        try reloading.startWatching(onChange, reloadingNow: reloadingNow)
    }

    func stopWatching() { base.stopWatching() }

    func startSignalling(_ signal: @escaping @Sendable (BackendSignal) -> Void) { base.startSignalling(signal) }

    /// The error for a write of `changes`, naming its first key (sorted) when the role lacks a privilege.
    func refusal(_ changes: BackendChanges) -> StoreError {
        refusal(forKey: changes.values.keys.min())
    }

    /// The error for a write of `key` (`nil`: the schema version).
    func refusal(forKey key: String?) -> StoreError {
        guard let missingPrivilege else { return .readOnly(path: base.location) }
        return .writeNotPermitted(location: base.location, key: key, privilege: missingPrivilege)
    }
}

extension PreferenceStore {
    /// Refuses a local change of a read-only store: memory stays as it is and the refusal is reported.
    /// Returns whether the change was refused.
    func refuseIfReadOnly(_ value: StoredValue?, forKey key: String) -> Bool {
        guard isReadOnly else { return false }
        if state.withLock({ $0.values[key] != value }) { report(.commitFailed(readOnlyRefusal(forKey: key))) }
        return true
    }

    /// What a write of `key` on this read-only store is refused with.
    func readOnlyRefusal(forKey key: String?) -> StoreError {
        (writingBackend as? ReadOnlyBackend)?.refusal(forKey: key) ?? .readOnly(path: backend.location)
    }

    /// The backend writes go through: ``backend``, or the ``ReadOnlyBackend`` around it once the
    /// store became read-only while open (``becomeReadOnlyIfBackendMayOnlyRead()``), so
    /// `transaction` and `update` meet the refusal a store opened read-only gives.
    var writingBackend: any Backend {
        guard becameReadOnly.load(ordering: .acquiring) else { return backend }
        return lateReadOnlyBackend.withLock { $0 } ?? backend
    }

    /// After a commit refused for a privilege (PostgreSQL's 42501): when the backend now says what
    /// it lacks to write (``Backend/missingWritePrivilege``: an access rule made read-only since
    /// the open), the store becomes read-only at once, as if it had opened so: each later write is
    /// refused at `set`, typed, instead of being shown, sent and refused at commit.
    func becomeReadOnlyIfBackendMayOnlyRead() {
        guard !isReadOnly, let missing = backend.missingWritePrivilege else { return }
        lateReadOnlyBackend.withLock { $0 = ReadOnlyBackend(backend, missingPrivilege: missing) }
        becameReadOnly.store(true, ordering: .releasing)
    }
}
