import Foundation
import Synchronization

extension PreferenceStore: PreferenceAccess {
    /// Stores a raw value (`nil` removes the key), notifying observers if it changed.
    ///
    /// ```swift
    /// store.setStoredValue(.int(3), forKey: "count")
    /// ```
    public func setStoredValue(_ value: StoredValue?, forKey key: String) {
        apply(value, forKey: key)
    }

    /// Reports a value that could not be encoded; nothing was written.
    ///
    /// ```swift
    /// store.encodingFailed(forKey: "a", error: error)  // shows up in store.diagnostics
    /// ```
    public func encodingFailed(forKey key: String, error: any Error) {
        report(.encodingFailed(key: key, reason: "\(error)"))
    }

    /// Reports a stored value that did not decode; the stored value stays as it is.
    ///
    /// ```swift
    /// store.decodingFailed(forKey: "volume", expected: "Double", found: .string("loud"))
    /// ```
    public func decodingFailed(forKey key: String, expected: String, found: StoredValue) {
        report(.decodingFailed(key: key, expected: expected, found: "\(found.typeName) \(found)"))
    }
}

extension PreferenceStore {
    /// Commits every write made so far; when it returns, they are on disk.
    ///
    /// On failure (disk full, permissions) the writes stay in memory and pending, and the
    /// next flush retries them. A value the backend refuses at commit is dropped alone: the rest
    /// is committed, its key goes back to the committed value (observers are told), and the
    /// refusal is reported and thrown as ``StoreError/refused(key:reason:)``.
    ///
    /// ```swift
    /// store.set(1, forKey: "a")
    /// try store.flush()
    /// ```
    public func flush() throws {
        let refusals: [StoreError]
        do {
            refusals = try withBackendLock {
                let batch = state.withLock { state in
                    state.flushScheduled = false
                    defer { state.pending.removeAll() }
                    return state.pending
                }
                guard !batch.isEmpty else { return [] }
                return try commitRefusingAlone(batch)
            }
        } catch let error as StoreError {
            report(.commitFailed(error))
            throw error
        }
        for case .refused(let key, let reason) in refusals { report(.encodingFailed(key: key, reason: reason)) }
        deliverChanges()
        if let refusal = refusals.first { throw refusal }
    }

    /// Runs `body` while holding the backend lock. (`Mutex.withLock` wants a `sending` result,
    /// which a caller's generic result cannot promise; this result never leaves the calling task.)
    func withBackendLock<T>(_ body: () throws -> T) throws -> T {
        var outcome: Result<T, any Error>?
        backendLock.withLock { _ in outcome = Result { try body() } }
        return try outcome!.get()  // trap-ok: withLock ran the closure synchronously, so outcome is set
    }

    /// Runs a deferred flush shortly, so a burst of writes becomes one commit.
    func scheduleFlush() {
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.flushDelay) { [weak self] in
            try? self?.flush()  // failures are reported and retried by the next flush
        }
    }

    /// Atomically reads, transforms and writes one key, also across processes: the backend's
    /// exclusive section spans the read and the write. Returns the new value once committed.
    ///
    /// ```swift
    /// try store.update(.launchCount) { $0 += 1 }  //=> 4
    /// ```
    @discardableResult
    public func update<Value>(_ key: StoredKey<Value>, _ transform: (inout Value) throws -> Void) throws -> Value {
        try transaction { transaction in
            var value = transaction[key]
            try transform(&value)
            transaction[key] = value
            return value
        }
    }

    /// Reads and writes several keys all or nothing. The body sees the freshest data (other
    /// processes' writes included) and runs under the backend's exclusive section; its writes are
    /// committed together when it returns. A throw inside rolls all of it back.
    ///
    /// ```swift
    /// try store.transaction { tx in
    ///     tx.set(1, forKey: "a")
    ///     tx[.volume] = 0.2
    /// }
    /// ```
    @discardableResult
    public func transaction<R>(_ body: (Transaction) throws -> R) throws -> R {
        do {
            try flush()  // our earlier writes first, so the exclusive section starts from them
        } catch StoreError.refused {
            // An earlier write the backend refused was dropped alone and reported; it is no reason to refuse this one.
        }
        let result = try withBackendLock {
            let (outcome, fresh, staged) = try backend.withExclusiveAccess { fresh in
                let transaction = Transaction(base: fresh.values, store: self)
                let outcome = try body(transaction)
                if let failure = transaction.failure { throw failure }
                let changes = BackendChanges(values: transaction.staged, durability: durability)
                return (changes, (outcome, fresh, transaction.staged))
            }
            merge(fresh, origin: .external)
            applyCommitted(staged)
            return outcome
        }
        deliverChanges()
        return result
    }
}

/// Every open store, so the pending writes of all of them are flushed at normal process exit.
final class StoreRegistry: Sendable {
    static let shared = StoreRegistry()

    private struct WeakStore {
        weak var store: PreferenceStore?
    }

    private let stores = Mutex<[ObjectIdentifier: WeakStore]>([:])

    private init() {
        atexit { StoreRegistry.shared.flushAll() }
    }

    func add(_ store: PreferenceStore) {
        stores.withLock { $0[ObjectIdentifier(store)] = WeakStore(store: store) }
    }

    func remove(_ store: PreferenceStore) {
        stores.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(store)) }
    }

    private func flushAll() {
        let open = stores.withLock { $0.values.compactMap(\.store) }
        for store in open { try? store.flush() }  // failures were reported; nothing more can be done at exit
    }
}
