import Foundation
import Synchronization
import Testing

@testable import StoredKit

/// A store learns of other writers from the moment it opens, not only while something observes
/// it; and watching costs no more than one inotify descriptor per process.
@Suite("A store nobody observes stays fresh")
struct UnobservedFreshnessTests {
    @Test(arguments: BackendKind.allCases)
    func anotherInstancesWriteReachesAStoreNobodyObserves(kind: BackendKind) async throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["greeting": .string("before")])
        let store = try fixture.open()
        #expect(store.value(forKey: "greeting", as: String.self) == "before")
        #expect(store[.volume] == 0.5)

        try fixture.seed(["greeting": .string("after"), "volume": .double(0.8)])

        #expect(await waitUntil { store.value(forKey: "greeting", as: String.self) == "after" })
        #expect(await waitUntil { store[.volume] == 0.8 })
    }

    @Test(arguments: BackendKind.allCases)
    func aReadOnlyStoreSeesTheNewerAppsWrites(kind: BackendKind) async throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["greeting": .string("before")], schemaVersion: 5)
        let store = try fixture.open([Migration(version: 1, "first") { _ in }], whenNewer: .openReadOnly)
        #expect(store.isReadOnly)
        #expect(store.value(forKey: "greeting", as: String.self) == "before")

        try fixture.seed(["greeting": .string("after")], schemaVersion: 5)

        #expect(await waitUntil { store.value(forKey: "greeting", as: String.self) == "after" })
    }

    @Test(arguments: BackendKind.allCases)
    func aWatchingStoreNobodyHoldsIsReleased(kind: BackendKind) async throws {
        let fixture = try MigrationFixture(kind)
        weak var released: PreferenceStore?
        do {
            let store = try fixture.open()
            store.set(1, forKey: "a")
            _ = store.value(forKey: "a", as: Int.self)
            released = store
        }
        try fixture.seed(["a": .int(2)])  // a watcher signal in flight must not keep it alive
        #expect(await waitUntil { released == nil })
    }

    /// A store starts watching just after its first load: a write in between must not be missed.
    @Test(arguments: [BackendKind.memory, .plist])
    func aWriteBetweenLoadAndWatchIsReportedWhenWatchingStarts(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        let watched = fixture.backend()
        _ = try watched.load()
        try fixture.seed(["a": .int(1)])
        let calls = Mutex(0)

        try watched.startWatching { calls.withLock { $0 += 1 } }
        defer { watched.stopWatching() }

        #expect(calls.withLock { $0 } == 1)
    }

    /// The usual limit is 128 inotify instances per user: one per store would fail long before
    /// an app with a few hundred stores (or a test suite) is done opening them.
    @Test func hundredsOfObservedStoresShareOneInotifyDescriptor() throws {
        let directory = try TemporaryDirectory()
        var stores: [PreferenceStore] = []
        var tokens: [ObservationToken] = []
        for index in 0..<160 {
            let backend: any Backend =
                index % 16 != 0
                ? PlistBackend(at: directory.file("prefs-\(index).plist"))
                : SQLiteBackend(at: directory.file("prefs-\(index).sqlite"))
            let store = try PreferenceStore(backend)
            tokens.append(store.observe("a") { _ in })
            stores.append(store)
        }
        #expect(Self.openInotifyDescriptors() <= 1)
        let watchFailures = stores.flatMap(\.recentEvents).filter {
            if case .reloadFailed = $0 { return true } else { return false }
        }
        #expect(watchFailures.isEmpty)
        withExtendedLifetime(tokens) {}
    }

    /// How many inotify instances this process has open.
    static func openInotifyDescriptors() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.count { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) == "anon_inode:inotify"
        }
    }
}
