import Foundation
import Synchronization

extension PreferenceStore {
    /// Commits every write made so far; when it returns, they are on disk.
    ///
    /// On failure (disk full, permissions) the writes stay in memory and pending, and the
    /// next flush retries them. A value the backend refuses at commit is dropped alone: the rest
    /// is committed, its key goes back to the committed value (observers are told), and the
    /// refusal is reported and thrown as ``StoreError/refused(key:reason:)``.
    ///
    /// Inside a transaction body on this store it throws ``StoreError/insideTransaction(path:operation:)``
    /// (the transaction commits when its body returns; flush after that).
    ///
    /// ```swift
    /// store.set(1, forKey: "a")
    /// try store.flush()
    /// ```
    public func flush() throws {
        // This thread holds the backend lock: locking it again would trap, and waiting could not end.
        if ExclusiveSection.current(for: self) != nil {
            throw StoreError.insideTransaction(path: backend.location, operation: "flush()")
        }
        if ExclusiveSection.heldByAnotherStore(over: self) {  // it would wait for this thread's own exclusion
            throw StoreError.insideTransaction(path: backend.location, operation: "flush() on a second store of the same data")
        }
        let refusals: [StoreError]
        do {
            refusals = try withBackendLock {
                let pending = state.withLock { state in
                    state.flushScheduled = false
                    defer { state.pending.removeAll() }
                    return state.pending
                }
                let (batch, stamps) = (pending.mapValues(\.value), pending.compactMapValues(\.stamp))
                guard !batch.isEmpty else { return [] }
                return try commitRefusingAlone(batch, stamps: stamps)
            }
        } catch let error as StoreError {
            report(.commitFailed(error))
            throw error
        }
        for refusal in refusals {
            if case .refused(let key, let reason) = refusal {
                report(.encodingFailed(key: key, reason: reason))
            } else {
                report(.commitFailed(refusal))  // a write its role may no longer make
            }
        }
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
}
