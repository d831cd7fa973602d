/// A store's exclusive section that the current thread is inside: it holds the store's backend
/// lock and runs a transaction body. Calls made from the body on the same store find it here
/// instead of locking again (which would trap: a `Mutex` is not recursive):
///
/// - a nested ``PreferenceStore/transaction(_:)`` or `update` joins it as a savepoint,
/// - ``PreferenceStore/flush()`` throws ``StoreError/insideTransaction(path:operation:)``,
/// - a plain write on an immediate store is committed once the outermost transaction returns.
///
/// Sections form a chain per thread, innermost first (a body may open a transaction on another store).
/// A second store over the same file or namespace finds the section by its backend's location:
/// its transaction or flush throws instead of waiting for an exclusion this very thread holds.
final class ExclusiveSection {
    private static let innermost = ThreadLocal<ExclusiveSection>()

    let store: ObjectIdentifier
    /// The store's ``Backend/location``; `nil` for a memory backend, whose location names no data.
    private let location: String?
    /// The transaction a nested call joins: the innermost one on this store.
    let transaction: Transaction
    private let outer: ExclusiveSection?
    /// Set when the body wrote through an immediate store: the outermost section flushes at its end.
    private var flushAfterwards = false

    private init(store: PreferenceStore, transaction: Transaction, outer: ExclusiveSection?) {
        self.store = ObjectIdentifier(store)
        location = store.backend is MemoryBackend ? nil : store.backend.location
        self.transaction = transaction
        self.outer = outer
    }

    /// The innermost section of `store` on this thread, if the thread is inside one.
    static func current(for store: PreferenceStore) -> ExclusiveSection? {
        let identifier = ObjectIdentifier(store)
        var section = innermost.current
        while let candidate = section {
            if candidate.store == identifier { return candidate }
            section = candidate.outer
        }
        return nil
    }

    /// Whether this thread is inside a section of another store over the same data as `store`.
    static func heldByAnotherStore(over store: PreferenceStore) -> Bool {
        guard innermost.current != nil, !(store.backend is MemoryBackend) else { return false }
        let location = store.backend.location
        var section = innermost.current
        while let candidate = section {
            if candidate.location == location, candidate.store != ObjectIdentifier(store) { return true }
            section = candidate.outer
        }
        return false
    }

    /// Runs `body` with `transaction` as `store`'s innermost section on this thread. Sets
    /// `needsFlush` when a write on the immediate store waits for a flush (asked of the outermost
    /// section only), also when `body` throws: such a write is not part of the transaction.
    static func enter<R>(
        _ store: PreferenceStore, with transaction: Transaction, needsFlush: inout Bool, _ body: () throws -> R
    ) rethrows -> R {
        let section = ExclusiveSection(store: store, transaction: transaction, outer: innermost.current)
        innermost.current = section
        defer {
            innermost.current = section.outer
            needsFlush = section.flushAfterwards
        }
        return try withExtendedLifetime(section) { try body() }
    }

    /// Asks the outermost section of this store to flush when it ends.
    func flushWhenDone() {
        var section: ExclusiveSection? = self
        var outermost = self
        while let candidate = section {
            if candidate.store == store { outermost = candidate }
            section = candidate.outer
        }
        outermost.flushAfterwards = true
    }
}
