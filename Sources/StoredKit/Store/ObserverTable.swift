/// Who wants to hear about which key. Observers of one key are called in the order they registered.
struct ObserverTable {
    typealias Callback = @Sendable (Change) -> Void
    private var nextID = 0
    private var byKey: [String: [(id: Int, callback: Callback)]] = [:]
    private var everyKey: [(id: Int, callback: Callback)] = []

    var isEmpty: Bool { everyKey.isEmpty && byKey.isEmpty }

    mutating func add(key: String?, _ callback: @escaping Callback) -> Int {
        nextID += 1
        if let key { byKey[key, default: []].append((nextID, callback)) } else { everyKey.append((nextID, callback)) }
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

    func recipients(for key: String) -> [Callback] {
        (byKey[key] ?? []).map(\.callback) + everyKey.map(\.callback)
    }
}

/// A change together with the observers that were registered when it happened.
struct Delivery {
    let change: Change
    let recipients: [ObserverTable.Callback]
}
