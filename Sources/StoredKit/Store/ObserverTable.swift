/// Who wants to hear about which key. Observers of one key are called in the order they registered.
struct ObserverTable {
    typealias Callback = @Sendable (Change) -> Void
    private var nextID = 0
    private var byKey: [String: [(id: Int, callback: Callback, decodes: Bool)]] = [:]
    private var everyKey: [(id: Int, callback: Callback)] = []

    var isEmpty: Bool { everyKey.isEmpty && byKey.isEmpty }

    /// `decodes`: the observer decodes the key as a type, so it also hears changes below the
    /// highest value (``Change/isBelowTop``).
    mutating func add(key: String?, decodes: Bool = false, _ callback: @escaping Callback) -> Int {
        nextID += 1
        if let key {
            byKey[key, default: []].append((nextID, callback, decodes))
        } else {
            everyKey.append((nextID, callback))
        }
        return nextID
    }

    mutating func remove(id: Int, key: String?) {
        if let key {
            byKey[key]?.removeAll { $0.id == id }
            if byKey[key]?.isEmpty == true { byKey[key] = nil }
        } else {
            everyKey.removeAll { $0.id == id }
        }
    }

    func recipients(for change: Change) -> [Callback] {
        if change.isBelowTop { return (byKey[change.key] ?? []).filter(\.decodes).map(\.callback) }
        return (byKey[change.key] ?? []).map(\.callback) + everyKey.map(\.callback)
    }
}

/// A change together with the observers that were registered when it happened.
struct Delivery {
    let change: Change
    let recipients: [ObserverTable.Callback]
}
