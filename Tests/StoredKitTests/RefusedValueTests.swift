import Foundation
import Synchronization
import Testing

@testable import StoredKit

/// A memory backend that refuses some keys only when they are committed (as a third-party
/// backend without `validate` would), or fails every commit while `failing` is set.
final class CommitRefusingBackend: Backend {
    let base = MemoryBackend()
    let refusedKeys: Set<String>
    let failing = Mutex(false)
    let commits = Mutex(0)

    init(refusing keys: Set<String>) { refusedKeys = keys }

    var location: String { "refusing" }
    func load() throws -> BackendSnapshot { try base.load() }

    func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        commits.withLock { $0 += 1 }
        if failing.withLock({ $0 }) { throw StoreError.io(path: location, operation: "write", errno: ENOSPC) }
        if let key = changes.values.keys.sorted().first(where: refusedKeys.contains) {
            throw StoreError.refused(key: key, reason: "this backend cannot hold '\(key)'")
        }
        return try base.commit(changes)
    }

    func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        try base.withExclusiveAccess { snapshot in
            let (changes, result) = try body(snapshot)
            if let key = changes.values.keys.first(where: refusedKeys.contains) {
                throw StoreError.refused(key: key, reason: "this backend cannot hold '\(key)'")
            }
            return (changes, result)
        }
    }

    func startWatching(_ onChange: @escaping @Sendable () -> Void) throws {}
    func stopWatching() {}
}

@Suite("A refused value is refused alone")
struct RefusedValueTests {
    /// Values a plist store cannot hold, each with the format that cannot hold it.
    static let unholdable: [(name: String, key: String, value: StoredValue, format: PlistFormat)] = [
        ("reserved key", "StoredKit.metadata", .dictionary(["schemaVersion": .int(3)]), .binary),
        ("XML date 1e300", "when", .date(Date(timeIntervalSinceReferenceDate: 1e300)), .xml),
        ("600-deep array", "deep", DeepValue.arrays(600), .xml),
        ("600-deep array", "deep", DeepValue.arrays(600), .binary),
    ]

    // Defect 2: the refused value stayed pending, so every later flush failed and nothing reached the disk.
    @Test(arguments: 0..<unholdable.count)
    func aValueThePlistFormatCannotHoldIsRefusedAtSetAndLaterWritesReachTheDisk(case index: Int) throws {
        let (_, key, value, format) = Self.unholdable[index]
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        let store = try PreferenceStore(.plist(at: url, format: format))
        store.set(1, forKey: "before")
        store.setStoredValue(value, forKey: key)
        #expect(store.storedValue(forKey: key) == nil)
        guard case .encodingFailed(let reportedKey, _)? = store.recentEvents.last else {
            Issue.record("expected encodingFailed, got \(store.recentEvents)")
            return
        }
        #expect(reportedKey == key)
        try store.flush()
        store.set(2, forKey: "after")
        try store.flush()
        let reopened = try PreferenceStore(.plist(at: url, format: format))
        #expect(reopened.value(forKey: "before", as: Int.self) == 1)
        #expect(reopened.value(forKey: "after", as: Int.self) == 2)
    }

    @Test func aValueRefusedOnlyAtCommitIsDroppedRevertedAndReportedWhileTheRestCommits() async throws {
        let backend = CommitRefusingBackend(refusing: ["bad"])
        _ = try backend.base.commit(BackendChanges(values: ["bad": .int(0)]))
        let store = try PreferenceStore(backend)
        let seen = Recorder<Change>()
        let token = store.observe("bad") { seen.append($0) }
        defer { token.cancel() }
        store.set(1, forKey: "bad")
        store.set(2, forKey: "good")
        // The deferred flush may have run already; either way the refusal was met by one of them.
        try? store.flush()
        #expect(try backend.base.load().values == ["bad": .int(0), "good": .int(2)])
        #expect(store.value(forKey: "bad", as: Int.self) == 0)
        #expect(await seen.wait(forCount: 2))
        #expect(seen.values.map(\.newValue) == [.int(1), .int(0)])
        #expect(store.recentEvents.contains { if case .encodingFailed(key: "bad", _) = $0 { true } else { false } })
        // Nothing of it is left pending: the next writes commit, and flush succeeds.
        store.set(3, forKey: "after")
        try store.flush()
        #expect(try backend.base.load().values["after"] == .int(3))
    }

    @Test func aTransientFailureIsNotARefusal() throws {
        let backend = CommitRefusingBackend(refusing: [])
        let store = try PreferenceStore(backend)
        backend.failing.withLock { $0 = true }
        store.set(1, forKey: "a")
        #expect(throws: StoreError.self) { try store.flush() }
        #expect(store.value(forKey: "a", as: Int.self) == 1)
        backend.failing.withLock { $0 = false }
        try store.flush()
        #expect(try backend.base.load().values["a"] == .int(1))
    }

    @Test func aTransactionWithOneRefusedValueIsRefusedWholeAndAppliesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try PreferenceStore(.plist(at: directory.file("prefs.plist"), format: .xml))
        store.set(1, forKey: "a")
        let error = #expect(throws: StoreError.self) {
            try store.transaction { tx in
                tx.set(2, forKey: "a")
                tx.setStoredValue(.date(Date(timeIntervalSinceReferenceDate: 1e300)), forKey: "when")
                tx.set(3, forKey: "b")
            }
        }
        guard case .refused(let key, _)? = error else {
            Issue.record("expected refused, got \(String(describing: error))")
            return
        }
        #expect(key == "when")
        #expect(store.value(forKey: "a", as: Int.self) == 1)
        #expect(store.storedValue(forKey: "b") == nil)
        #expect(throws: StoreError.self) {
            try store.transaction { tx in tx.setStoredValue(DeepValue.arrays(StoredValue.maximumDepth + 1), forKey: "b") }
        }
        #expect(store.storedValue(forKey: "b") == nil)
    }

    @Test func aTransactionTheBackendRefusesAtCommitAppliesNothing() throws {
        let backend = CommitRefusingBackend(refusing: ["bad"])
        let store = try PreferenceStore(backend)
        #expect(throws: StoreError.self) {
            try store.transaction { tx in
                tx.set(1, forKey: "good")
                tx.set(2, forKey: "bad")
            }
        }
        #expect(store.keys.isEmpty)
        #expect(try backend.base.load().values.isEmpty)
    }

    @Test func aMigrationWritingAValueTheStoreCannotHoldFailsAndCommitsNothing() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        do {
            let store = try PreferenceStore(.plist(at: url))
            store.set(1, forKey: "a")
        }
        let tooDeep = Migration(version: 1, "too deep") { m in
            m.set(5, forKey: "b")
            m.setStoredValue(DeepValue.arrays(StoredValue.maximumDepth + 1), forKey: "deep")
        }
        let reserved = Migration(version: 1, "reserved") { m in try m.renameKey("a", to: "StoredKit.metadata") }
        for migration in [tooDeep, reserved] {
            let error = #expect(throws: StoreError.self) { try PreferenceStore(.plist(at: url), migrations: [migration]) }
            guard case .migrationFailed(let version, _, _)? = error else {
                Issue.record("expected migrationFailed, got \(String(describing: error))")
                continue
            }
            #expect(version == 1)
        }
        let reopened = try PreferenceStore(.plist(at: url))
        #expect(reopened.keys == ["a"])
        #expect(reopened.schemaVersion == 0)
    }
}

extension RefusedValueTests {
    @Test func aValueRefusedAtCommitDoesNotFailTheNextTransaction() throws {
        let backend = CommitRefusingBackend(refusing: ["bad"])
        let store = try PreferenceStore(backend)
        store.set(1, forKey: "bad")
        try store.transaction { tx in tx.set(2, forKey: "good") }
        #expect(try backend.base.load().values == ["good": .int(2)])
        #expect(store.storedValue(forKey: "bad") == nil)
    }
}
