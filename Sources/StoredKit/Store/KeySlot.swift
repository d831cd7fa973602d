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
