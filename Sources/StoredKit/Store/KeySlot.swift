import Observation
import Synchronization

/// Per-key bookkeeping shared by every reader of one key in one store: a generation that
/// changes with every write (so cached decoded values know when they are stale without
/// taking the store's lock) and the Observation registrar that tells SwiftUI-style
/// trackers about changes.
@usableFromInline
final class KeySlot: Observable, Sendable {
    let name: String
    @usableFromInline let generationCounter = Atomic<UInt64>(0)
    @usableFromInline let registrar = ObservationRegistrar()

    init(name: String) {
        self.name = name
    }

    /// The current generation; acquiring, so a reader that sees a new generation also sees its value.
    @inlinable var generation: UInt64 { generationCounter.load(ordering: .acquiring) }

    /// Called under the store's lock after the key's value changed.
    func advance() {
        generationCounter.add(1, ordering: .releasing)
    }

    /// Tells Observation that this key was read (call on every read that should be tracked).
    /// One key path object for every access, instead of one materialised per read.
    @usableFromInline static let trackedKeyPath: KeyPath<KeySlot, UInt64> & Sendable = \.generation

    @inlinable func markAccessed() {
        registrar.access(self, keyPath: Self.trackedKeyPath)
    }

    /// Tells Observation trackers that this key changed.
    func markChanged() {
        registrar.willSet(self, keyPath: \.generation)
        registrar.didSet(self, keyPath: \.generation)
    }
}

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
