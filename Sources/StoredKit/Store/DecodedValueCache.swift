import Synchronization

/// A decoded value remembered together with the generation it was decoded at.
///
/// The hot path (`currentValue`) is inlinable so a `@Stored` read specialises in the caller's
/// module: an atomic load, an uncontended lock and a copy, with no generic dispatch.
@usableFromInline
final class DecodedValueCache<Value: Sendable>: Sendable {
    @usableFromInline let slot: KeySlot
    @usableFromInline let entry = Mutex<(generation: UInt64, value: Value)?>(nil)
    /// The store whose key this caches; weak, so a key's cache never keeps a store alive.
    @usableFromInline weak let store: PreferenceStore?

    init(slot: KeySlot, store: PreferenceStore) {
        self.slot = slot
        self.store = store
    }

    /// The cached value if it is still current (and tells Observation it was read).
    @inlinable var currentValue: Value? {
        slot.markAccessed()
        let generation = slot.generation
        return entry.withLock { entry in
            guard let entry, entry.generation == generation else { return nil }
            return entry.value
        }
    }

    func remember(_ value: Value, at generation: UInt64) {
        entry.withLock { $0 = (generation, value) }
    }
}
