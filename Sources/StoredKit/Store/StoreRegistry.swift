import Foundation
import Synchronization

/// Every open store, so the pending writes of all of them are flushed when the process exits
/// (``ExitSequence`` runs ``flushAll(within:)``; the first store to open arms it).
final class StoreRegistry: Sendable {
    static let shared = StoreRegistry()

    private struct WeakStore {
        weak var store: PreferenceStore?
    }

    private let stores = Mutex<[ObjectIdentifier: WeakStore]>([:])

    private init() {
        ExitSequence.arm()
    }

    func add(_ store: PreferenceStore) {
        stores.withLock { $0[ObjectIdentifier(store)] = WeakStore(store: store) }
    }

    func remove(_ store: PreferenceStore) {
        stores.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(store)) }
    }

    /// Starts the flush of every open store at once, each on its own Dispatch worker, and waits
    /// at most `deadline` for all of them: stores on one silent server cost `deadline` once, not
    /// once each, and a file store is not kept waiting behind them. Returns the group of flushes,
    /// so the caller can wait for the stragglers once it has made them fail fast.
    func flushAll(within deadline: Duration) -> DispatchGroup {
        let open = stores.withLock { $0.values.compactMap(\.store) }
        let group = DispatchGroup()
        // A queue of its own: its threads are not capped at one per core as the global queue's
        // are, so flushes blocked on a silent server do not hold up the others.
        let flushes = DispatchQueue(label: "StoredKit.exit-flush", attributes: .concurrent)
        for store in open {
            // Failures were reported on the store's diagnostics; nothing more can be done at exit.
            flushes.async(group: group) { try? store.flush() }
        }
        _ = group.wait(timeout: .now() + deadline.dispatchInterval)
        return group
    }
}

extension Duration {
    /// This duration for Dispatch's clock (whole milliseconds, rounded down).
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        return .milliseconds(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
