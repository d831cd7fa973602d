extension PreferenceStore {
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
                let transaction = Transaction(base: fresh.values, store: self, layers: state.withLock { $0.layers })
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
