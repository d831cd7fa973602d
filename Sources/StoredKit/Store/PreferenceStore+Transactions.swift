extension PreferenceStore {
    /// Atomically reads, transforms and writes one key, also across processes: the backend's
    /// exclusive section spans the read and the write. Inside a transaction body on the same
    /// store, it joins that transaction (see ``transaction(_:)``).
    ///
    /// Returns the value a read of the key gives once the write is committed. In a store with
    /// layers that is not always the transformed value: the transform starts from the value reads
    /// give and its result is the user's value, but a launch argument or environment variable that
    /// converts to the key's type still wins over it, so its value is returned, as `store[key]`
    /// and `@Stored` read it next (``userValue(forKey:as:)`` gives the stored one). A forced key throws
    /// ``StoreError/forced(key:source:)`` and writes nothing.
    ///
    /// ```swift
    /// try store.update(.launchCount) { $0 += 1 }  //=> 4
    /// // Started with `-launchCount 9`: the user's value becomes 5, the argument still reads.
    /// try store.update(.launchCount) { $0 += 1 }  //=> 9
    /// ```
    @discardableResult
    public func update<Value>(_ key: StoredKey<Value>, _ transform: (inout Value) throws -> Void) throws -> Value {
        try transaction { transaction in
            var value = transaction[key]
            try transform(&value)
            transaction[key] = value
            // Under layers, an argument or the environment may still win over what was stored.
            return transaction.hasLayers ? transaction[key] : value
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
    ///
    /// Calls on the same store from inside the body (on the body's thread):
    /// - `transaction` or ``update(_:_:)`` joins this transaction as a savepoint: its writes are
    ///   committed with the outer ones when the outermost body returns (all or nothing with it),
    ///   and a throw out of its body undoes its own writes only, then reaches the outer body.
    /// - ``flush()`` throws ``StoreError/insideTransaction(path:operation:)``: nothing of the
    ///   transaction is committed before its body returns. Flush after `transaction` returns.
    ///   So do `transaction` and `flush()` on a second store over the same file or namespace,
    ///   which would wait for the exclusion this body holds.
    /// - a plain write (`store.set`) is not part of the transaction: it lands in memory at once and
    ///   is not rolled back by a throw; an immediate store commits it before `transaction` returns.
    @discardableResult
    public func transaction<R>(_ body: (Transaction) throws -> R) throws -> R {
        if let section = ExclusiveSection.current(for: self) { return try joining(section.transaction, body) }
        if ExclusiveSection.heldByAnotherStore(over: self) {
            throw StoreError.insideTransaction(
                path: backend.location, operation: "transaction(_:) on a second store of the same data")
        }
        do {
            try flush()  // our earlier writes first, so the exclusive section starts from them
        } catch StoreError.refused {
            // An earlier write the backend refused was dropped alone and reported; it is no reason to refuse this one.
        }
        var needsFlush = false
        // A plain write on an immediate store made in the body: committed once the section is left.
        defer { if needsFlush { try? flush() } }  // a failure is reported by flush; the writes stay pending
        let result = try withBackendLock {
            let (outcome, fresh, staged) = try exclusively { fresh in
                let transaction = Transaction(base: fresh.values, store: self, layers: state.withLock { $0.layers })
                defer { transaction.close() }
                let outcome = try ExclusiveSection.enter(self, with: transaction, needsFlush: &needsFlush) {
                    try body(transaction)
                }
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

    /// `body` in the writing backend's exclusive section. A refusal for a privilege (PostgreSQL's
    /// 42501: an access rule made read-only since the open) may make the store read-only.
    private func exclusively<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        do {
            return try writingBackend.withExclusiveAccess(body)
        } catch let error as StoreError {
            if case .postgres(_, "42501", _) = error { becomeReadOnlyIfBackendMayOnlyRead() }
            throw error
        }
    }

    /// A transaction opened inside `outer`'s body on this store: a savepoint whose writes join
    /// `outer`'s when its body returns, and are dropped alone when it throws.
    private func joining<R>(_ outer: Transaction, _ body: (Transaction) throws -> R) throws -> R {
        let savepoint = Transaction(joining: outer, store: self)
        defer { savepoint.close() }
        var needsFlush = false  // only the outermost section flushes
        let result = try ExclusiveSection.enter(self, with: savepoint, needsFlush: &needsFlush) { try body(savepoint) }
        if let failure = savepoint.failure { throw failure }
        outer.adopt(savepoint)
        return result
    }
}
