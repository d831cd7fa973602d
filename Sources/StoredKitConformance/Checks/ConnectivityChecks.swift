import Foundation
import StoredKit
import Synchronization
import Testing

/// Storage that becomes unreachable for a while (a database server restarting): commits fail,
/// the writes stay pending, and when the backend signals ``BackendSignal/retryPending`` they land.
/// The subject's backend runs behind ``Interruption``, which plays the outage, so any backend
/// is checked for what the engine then asks of it: a failed commit changed nothing, and the
/// same batch committed again applies all of it.
enum ConnectivityChecks {
    static let all: [BackendConformance.Check] = [writesLandWhenStorageIsBack]

    static let writesLandWhenStorageIsBack = BackendConformance.Check(
        "writes made while the storage is unreachable land when the backend signals it is back", requires: .persistent
    ) { subject in
        let interruption = Interruption(try subject.openBackend())
        let store = try PreferenceStore(interruption)
        store.set("before", forKey: "kept")
        try store.flush()

        interruption.isDown = true
        store.set("while away", forKey: "written")
        store.set("changed while away", forKey: "kept")
        #expect(throws: (any Error).self, "a flush while the storage is unreachable must fail") { try store.flush() }
        #expect(store.value(forKey: "written", as: String.self) == "while away", "reads serve memory meanwhile")
        #expect(try subject.reload().values["written"] == nil, "the failed commit wrote something")

        interruption.isDown = false
        interruption.signalBack()
        let landed = try await eventually {
            let values = try subject.reload().values
            return values["written"] == .string("while away") && values["kept"] == .string("changed while away")
        }
        #expect(landed, "the pending writes did not land after .retryPending")
        #expect(store.recentEvents.contains { "\($0)".contains("is back") }, "the backend's event was not reported")
    }
}

/// The subject's backend behind a switch: while ``isDown``, every call fails as an unreachable
/// server's would; ``signalBack()`` sends what a backend sends when its storage is back.
final class Interruption: Backend {
    let base: any Backend
    private let state = Mutex<(down: Bool, signal: (@Sendable (BackendSignal) -> Void)?)>((false, nil))

    init(_ base: any Backend) { self.base = base }

    var isDown: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    var location: String { base.location }

    func signalBack() {
        let signal = state.withLock { $0.signal }
        signal?(.event(.connectionRestored(server: location)))
        signal?(.retryPending)
    }

    func load() throws -> BackendSnapshot {
        try checkReachable("load")
        return try base.load()
    }

    func validate(_ value: StoredValue, forKey key: String) throws { try base.validate(value, forKey: key) }

    func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        try checkReachable("commit")
        return try base.commit(changes)
    }

    func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        try checkReachable("update")
        return try base.withExclusiveAccess(body)
    }

    func startWatching(_ onChange: @escaping @Sendable () -> Void) throws { try base.startWatching(onChange) }

    func stopWatching() { base.stopWatching() }

    func startSignalling(_ signal: @escaping @Sendable (BackendSignal) -> Void) {
        state.withLock { $0.signal = signal }
        base.startSignalling(signal)
    }

    private func checkReachable(_ operation: String) throws {
        guard isDown else { return }
        throw StoreError.backendFailed(location: location, operation: operation, underlying: Unreachable())
    }

    struct Unreachable: Error, CustomStringConvertible {
        var description: String { "unreachable while a conformance check plays an outage" }
    }
}
