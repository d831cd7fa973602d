/// The backend of a store opened read-only: reads and watching pass through, writes are refused.
///
/// It sits between the store and the real backend so every write path (`set`, `flush`,
/// `transaction`, `update`) meets the same refusal, and the file is never rewritten.
final class ReadOnlyBackend: Backend {
    let base: any Backend

    init(_ base: any Backend) { self.base = base }

    var location: String { base.location }

    func load() throws -> BackendSnapshot { try base.load() }

    func validate(_ value: StoredValue, forKey key: String) throws { try base.validate(value, forKey: key) }

    func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        guard changes.isEmpty else { throw StoreError.readOnly(path: base.location) }
        return nil
    }

    /// Runs `body` on freshly loaded data without taking the backend's exclusion (nothing will
    /// be written); a body that wants to write is refused.
    func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        let (changes, result) = try body(try base.load())
        guard changes.isEmpty else { throw StoreError.readOnly(path: base.location) }
        return result
    }

    func startWatching(_ onChange: @escaping @Sendable () -> Void) throws { try base.startWatching(onChange) }

    func stopWatching() { base.stopWatching() }

    func startSignalling(_ signal: @escaping @Sendable (BackendSignal) -> Void) { base.startSignalling(signal) }
}

extension PreferenceStore {
    /// Refuses a local change of a read-only store: memory stays as it is and the refusal is reported.
    /// Returns whether the change was refused.
    func refuseIfReadOnly(_ value: StoredValue?, forKey key: String) -> Bool {
        guard isReadOnly else { return false }
        if state.withLock({ $0.values[key] != value }) { report(.commitFailed(.readOnly(path: backend.location))) }
        return true
    }
}
