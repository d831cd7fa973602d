import Foundation
import Synchronization

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
