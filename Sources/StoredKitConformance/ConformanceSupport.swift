import Foundation
import StoredKit
import Synchronization

extension ConformanceSubject {
    /// A store over a new backend instance: what an app gets when it opens the data.
    func openStore(durability: Durability = .deferred, corruption: CorruptionPolicy = .quarantine) throws -> PreferenceStore {
        try PreferenceStore(openBackend(corruption: corruption), durability: durability)
    }

    /// What a new instance reads: the data as the next launch sees it.
    func reload() throws -> BackendSnapshot {
        try openBackend().load()
    }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held. Checks wait on
/// other instances this way, never on a fixed delay.
func eventually(timeout: Duration = .seconds(10), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}

/// Collects what observers deliver on other threads.
final class Received<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    var all: [Element] { storage.withLock { $0 } }

    func append(_ element: Element) { storage.withLock { $0.append(element) } }
}
