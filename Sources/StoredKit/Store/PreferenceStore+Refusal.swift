/// How a value the backend cannot hold is refused alone: at `set` when that can be known
/// (the key rules of `PreferenceStore+KeyRules.swift`, ``Backend/validate(_:forKey:)`` and the nesting limit), at commit otherwise, and never by
/// holding back the writes committed with it.
extension Backend {
    /// The checks every write passes before the engine accepts it: the key rules
    /// (``PreferenceStore/checkKey(_:)``), the nesting limit of ``StoredValue/maximumDepth``, then
    /// the backend's own ``validate(_:forKey:)``. For a value
    /// nothing is known about (a migration's, a transaction's).
    func admit(_ value: StoredValue, forKey key: String) throws(StoreError) {
        try admit(value, forKey: key, facts: .unknown, dateValidating: nil)
    }

    /// ``admit(_:forKey:)`` knowing what the encoder saw while it built `value` (`facts`): a value
    /// whose nesting it checked is not walked for it again, and one it wrote no date into is
    /// checked by `dateValidating` for its key alone. `dateValidating` is this backend as a
    /// ``DateValidatingBackend``, which a store asks once when it opens: that cast's failing
    /// conformance lookup (on every store but a plist one) cost a few hundred instructions on
    /// every Codable `set`.
    func admit(
        _ value: StoredValue, forKey key: String, facts: EncodingFacts, dateValidating: (any DateValidatingBackend)?
    ) throws(StoreError) {
        // One rule for keys on every backend, so that a key one of them cannot hold is refused here, by name.
        if let reason = PreferenceStore.refusalReason(forKey: key) { throw StoreError.refused(key: key, reason: reason) }
        // A scalar cannot be too deep, and most backends accept every value: the common write costs a switch.
        if !facts.nestingChecked, value.isContainer, value.isNested(deeperThan: StoredValue.maximumDepth) {
            throw StoreError.refused(key: key, reason: StoredValue.tooDeepReason)
        }
        do {
            if !facts.mayHoldDates, value.isContainer, let dateValidating {
                try dateValidating.validate(key: key)
            } else {
                try validate(value, forKey: key)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.refused(key: key, reason: "\(error)")
        }
    }
}

extension StoreError {
    /// What to say after "Value for 'key' was not stored:" for a refused write.
    var refusalReason: String {
        if case .refused(_, let reason) = self { return reason }
        return description
    }
}

extension PreferenceStore {
    /// Admits a local write of `value` (`nil`, a removal, always passes); a refusal is reported
    /// as ``StoreEvent/encodingFailed(key:reason:)``. Returns whether the write may go ahead.
    func admitLocalWrite(_ value: StoredValue?, forKey key: String, facts: EncodingFacts = .unknown) -> Bool {
        guard let value else { return true }
        do {
            try backend.admit(value, forKey: key, facts: facts, dateValidating: dateValidatingBackend)
            return true
        } catch {
            report(.encodingFailed(key: key, reason: error.refusalReason))
            return false
        }
    }

    /// Commits `batch` (called holding the backend lock). A key the backend refuses with
    /// ``StoreError/refused(key:reason:)`` is dropped, its memory value goes back to the
    /// committed one, and the rest is committed again; the refusals are returned. A privilege the
    /// role lost since the open (PostgreSQL's 42501) refuses every key of the batch the same way,
    /// as ``StoreError/writeNotPermitted(location:key:privilege:)``. Any other failure keeps what
    /// was not committed pending (for the next flush) and is thrown. `stamps` say when each write
    /// was made (``BackendChanges/stamps``), and stay with what is kept pending.
    func commitRefusingAlone(_ batch: [String: StoredValue?], stamps: [String: HybridTimestamp]) throws -> [StoreError] {
        var remaining = batch
        var refusals: [String: StoreError] = [:]
        var fresh: BackendSnapshot?
        while !remaining.isEmpty {
            do {
                fresh = try backend.commit(changes(remaining, stamps: stamps))
                break
            } catch StoreError.refused(let key, let reason) where remaining.index(forKey: key) != nil {
                remaining.removeValue(forKey: key)
                refusals[key] = .refused(key: key, reason: reason)
            } catch let error as StoreError where error.refusesData {
                // Refused data that the backend did not name (a server's SQLSTATE 22, 23 or 54, SQLite's
                // "too big"): each key alone finds it, rather than keeping the whole batch pending for ever.
                refusals.merge(try commitEachAlone(remaining, stamps: stamps, after: error)) { $1 }
                remaining.removeAll()
                fresh = try? backend.load()  // the commits' own snapshots are each older than the next commit
            } catch StoreError.postgres(_, "42501", let message) {
                // A privilege revoked since the open (which would have opened read-only): the batch
                // would fail the same way at every flush. Each write is dropped and named instead.
                for key in remaining.keys {
                    // StoredKit's own explanation (an access rule lost) names its remedy; the server's names a privilege.
                    let privilege =
                        StoreError.namesItsRemedy(message)
                        ? "an access rule to write it (\(message))" : "the privilege the server named (\(message))"
                    refusals[key] = .writeNotPermitted(location: backend.location, key: key, privilege: privilege)
                }
                remaining.removeAll()
                fresh = try? backend.load()
                becomeReadOnlyIfBackendMayOnlyRead()
            } catch {
                keepPending(remaining, stamps: stamps)
                throw StoreError(error, path: backend.location, operation: "commit")
            }
        }
        if let fresh { merge(fresh, origin: .external) }
        if !refusals.isEmpty { restoreCommitted(Set(refusals.keys), from: fresh) }
        return refusals.keys.sorted().compactMap { refusals[$0] }
    }

    /// Commits each key of `batch` alone, after `error` refused the batch without naming a key;
    /// returns the keys refused alone. When every key of several fails, the keys are not the cause:
    /// they stay pending and `error` is thrown, as is any other failure.
    private func commitEachAlone(
        _ batch: [String: StoredValue?], stamps: [String: HybridTimestamp], after error: StoreError
    ) throws -> [String: StoreError] {
        var refused: [String: StoreError] = [:]
        let keys = batch.keys.sorted()
        for (index, key) in keys.enumerated() {
            do {
                _ = try backend.commit(changes([key: batch[key] ?? nil], stamps: stamps))
            } catch let alone as StoreError where alone.refusesData {
                refused[key] = .refused(key: key, reason: alone.description)
            } catch StoreError.refused(key, let reason) {
                refused[key] = .refused(key: key, reason: reason)
            } catch {
                keepPending(batch.filter { refused[$0.key] == nil && keys[index...].contains($0.key) }, stamps: stamps)
                throw StoreError(error, path: backend.location, operation: "commit")
            }
        }
        if batch.count > 1, refused.count == batch.count {
            keepPending(batch, stamps: stamps)
            throw error
        }
        return refused
    }

    /// The batch of `values` at this store's durability, with the stamps of when they were made.
    private func changes(_ values: [String: StoredValue?], stamps: [String: HybridTimestamp]) -> BackendChanges {
        var changes = BackendChanges(values: values, durability: durability)
        if !stamps.isEmpty { changes.stamps = stamps.filter { values.index(forKey: $0.key) != nil } }
        return changes
    }

    /// Puts `values` back in the pending batch for the next flush, with the stamps of when they
    /// were made, unless a newer local write replaced one meanwhile.
    private func keepPending(_ values: [String: StoredValue?], stamps: [String: HybridTimestamp]) {
        state.withLock { state in
            for (key, value) in values where state.pending.index(forKey: key) == nil {
                state.pending[key] = PendingChange(value, stamp: stamps[key])
            }
        }
    }

    /// Puts the committed values of `keys` back into memory (telling observers), for writes the
    /// backend refused. Keys written again meanwhile keep the newer write.
    private func restoreCommitted(_ keys: Set<String>, from fresh: BackendSnapshot?) {
        let committed: BackendSnapshot
        if let fresh {
            committed = fresh
        } else {
            do {
                committed = try backend.load()
            } catch {
                // Memory keeps the refused value until the next reload brings the committed one.
                report(.reloadFailed(StoreError(error, path: backend.location, operation: "read")))
                return
            }
        }
        let changedSlots = state.withLock { state -> [KeySlot] in
            var slots: [KeySlot] = []
            for key in keys where state.pending.index(forKey: key) == nil {
                state.change(key, to: committed.values[key], origin: .local, slots: &slots)
            }
            return slots
        }
        for slot in changedSlots { slot.markChanged() }
    }
}

extension StoreError {
    /// Whether the backend refused the data itself without naming its key: PostgreSQL's data
    /// exceptions (SQLSTATE class 22), integrity violations such as an administrator's CHECK
    /// constraint (23) and program limits such as an index row too large (54); SQLite's "too big"
    /// and constraint failures. Retrying the same batch would fail the same way for ever.
    var refusesData: Bool {
        switch self {
        case .postgres(_, let code, _): ["22", "23", "54"].contains(code.prefix(2))
        case .sqlite(_, let code, _): SQLiteResultCode(code).refusesData
        default: false
        }
    }
}
