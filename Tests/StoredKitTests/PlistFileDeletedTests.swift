import Foundation
import Synchronization
import Testing

@testable import StoredKit

/// "Delete the preferences file to reset" works while the app runs: the store reads as empty,
/// observers are told, and the next write creates the file again.
@Suite("A plist file deleted or moved while open")
struct PlistFileDeletedTests {
    /// What happens to the file in each test.
    enum Removal: String, CaseIterable, Sendable {
        case delete, moveAside, moveToAnotherDirectory
    }

    /// An open, observed store holding `a` and `b`, flushed to `prefs.plist`.
    struct Fixture {
        let directory: TemporaryDirectory
        let store: PreferenceStore
        let changes = Recorder<Change>()
        let token: ObservationToken

        init() throws {
            directory = try TemporaryDirectory()
            store = try PreferenceStore(.plist(at: directory.file("prefs.plist")))
            store.set(1, forKey: "a")
            store.set("x", forKey: "b")
            try store.flush()
            token = store.changes.observeAll(into: changes)
        }

        var path: String { directory.file("prefs.plist").path }

        func remove(_ removal: Removal) throws {
            switch removal {
            case .delete:
                try FileManager.default.removeItem(atPath: path)
            case .moveAside:
                try FileManager.default.moveItem(atPath: path, toPath: path + ".old")
            case .moveToAnotherDirectory:
                let elsewhere = try TemporaryDirectory()
                try FileManager.default.moveItem(atPath: path, toPath: elsewhere.file("prefs.plist").path)
            }
        }

        /// Whether the store reads as empty again.
        var isReset: Bool { store.keys.isEmpty }
    }

    @Test(arguments: Removal.allCases)
    func theStoreReadsAsEmptyAndObserversAreTold(removal: Removal) async throws {
        let fixture = try Fixture()
        let settings = Settings(store: fixture.store)
        fixture.store.set(3, forKey: "launchCount")
        try fixture.store.flush()
        #expect(settings.launchCount == 3)

        try fixture.remove(removal)

        #expect(await waitUntil { fixture.isReset })
        #expect(settings.launchCount == 0)
        #expect(fixture.store.value(forKey: "a", as: Int.self) == nil)
        #expect(
            await fixture.changes.wait {
                $0.contains { $0.key == "a" && $0.newValue == nil && $0.origin == .external }
            })
        withExtendedLifetime(fixture.token) {}
    }

    @Test(arguments: Removal.allCases)
    func aLaterWriteCreatesTheFileWithOnlyTheNewKey(removal: Removal) async throws {
        let fixture = try Fixture()
        try fixture.remove(removal)
        #expect(await waitUntil { fixture.isReset })

        fixture.store.set(3, forKey: "c")
        try fixture.store.flush()

        #expect(FileManager.default.fileExists(atPath: fixture.path))
        #expect(try PlistBackend(at: fixture.directory.file("prefs.plist")).load().values == ["c": .int(3)])
    }

    /// A deleted file has no schema version: its data was reset, not migrated.
    @Test func theResetOfAMigratedStoreIsExternalNotAMigration() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        let seed = Migration(version: 1, "seed") { m in m.set(1, forKey: "a") }
        let store = try PreferenceStore(.plist(at: url), migrations: [seed])
        #expect(store.schemaVersion == 1)
        let changes = Recorder<Change>()
        let token = store.changes.observeAll(into: changes)

        try FileManager.default.removeItem(at: url)

        #expect(await changes.wait { $0.contains { $0.key == "a" && $0.newValue == nil } })
        #expect(changes.values.map(\.origin) == [.external])
        withExtendedLifetime(token) {}
    }

    @Test func aPendingLocalWriteSurvivesTheReset() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        let backend = DiskFullBackend(PlistBackend(at: url))
        let store = try PreferenceStore(backend)
        store.set(1, forKey: "a")
        try store.flush()
        backend.isFull.withLock { $0 = true }  // keeps the next write pending, like a full disk
        store.set("kept", forKey: "pending")
        #expect(throws: StoreError.self) { try store.flush() }

        try FileManager.default.removeItem(at: url)

        #expect(await waitUntil { store.keys == ["pending"] })
        #expect(store.value(forKey: "pending", as: String.self) == "kept")
        backend.isFull.withLock { $0 = false }
        try store.flush()
        #expect(try PlistBackend(at: url).load().values == ["pending": .string("kept")])
    }

    @Test func theDirectoryRemovedAndRecreatedIsWatchedAgain() async throws {
        let fixture = try Fixture()
        try FileManager.default.removeItem(at: fixture.directory.url)
        #expect(await waitUntil { fixture.isReset })

        try FileManager.default.createDirectory(at: fixture.directory.url, withIntermediateDirectories: true)
        _ = try PlistBackend(at: fixture.directory.file("prefs.plist")).commit(BackendChanges(values: ["c": .int(3)]))

        #expect(await waitUntil { fixture.store.value(forKey: "c", as: Int.self) == 3 })
        #expect(
            await fixture.changes.wait {
                $0.contains { $0.key == "c" && $0.newValue == .int(3) && $0.origin == .external }
            })
        withExtendedLifetime(fixture.token) {}
    }
}

/// A backend whose commits fail while `isFull` is set, as on a full disk; the rest passes through.
final class DiskFullBackend: Backend {
    let base: any Backend
    let isFull = Mutex(false)

    init(_ base: any Backend) { self.base = base }

    var location: String { base.location }

    func load() throws -> BackendSnapshot { try base.load() }

    func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        if isFull.withLock({ $0 }) { throw StoreError.io(path: base.location, operation: "write", errno: ENOSPC) }
        return try base.commit(changes)
    }

    func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        try base.withExclusiveAccess(body)
    }

    func startWatching(_ onChange: @escaping @Sendable () -> Void) throws { try base.startWatching(onChange) }

    func stopWatching() { base.stopWatching() }
}

extension Recorder where Element == Change {
    /// Waits (polling, up to `timeout`) until the recorded changes satisfy `condition`.
    func wait(timeout: Duration = .seconds(60), until condition: ([Change]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(values) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(values)
    }
}

extension AsyncStream where Element == Change {
    /// Records every change into `recorder` until the returned token is dropped.
    func observeAll(into recorder: Recorder<Change>) -> ObservationToken {
        let task = Task { for await change in self { recorder.append(change) } }
        return ObservationToken(onCancel: { task.cancel() })
    }
}
