import Foundation
import Testing

@testable import StoredKit

#if canImport(Glibc)
    import Glibc
#endif

/// The database file deleted (`rm prefs.sqlite`) or replaced (`mv backup.sqlite prefs.sqlite`)
/// while a store has it open: the store follows the file that has its name, as the plist backend does.
@Suite("SQLite: the file deleted or replaced while open")
struct SQLiteFileReplacedTests {
    /// A closed store file holding `values`.
    static func makeFile(_ url: URL, _ values: [String: Int]) throws {
        let store = try PreferenceStore(.sqlite(at: url), durability: .immediate)
        for (key, value) in values { store.set(value, forKey: key) }
        try store.flush()
    }

    /// What a fresh open of `url` reads, once every store of this test is closed.
    static func freshKeys(_ url: URL) throws -> [String: StoredValue] {
        try SQLiteBackend.sqlite(at: url).load().values
    }

    /// Removes the database file only, leaving its `-wal` and `-shm` companions, as `rm prefs.sqlite` does.
    static func remove(_ url: URL) {
        #expect(unlink(url.path) == 0)
    }

    /// Moves `source` over `target` in one rename, as `mv backup.sqlite prefs.sqlite` does.
    static func move(_ source: URL, over target: URL) {
        #expect(rename(source.path, target.path) == 0)
    }

    /// The check costs a `stat` per commit, never a reopen of a file that stayed where it was.
    @Test func anUnreplacedFileKeepsItsConnection() throws {
        let directory = try TemporaryDirectory()
        let backend = SQLiteBackend.sqlite(at: directory.database)
        _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))
        let first = try #require(backend.state.withLock { $0.connection.map(ObjectIdentifier.init) })

        for value in 2...5 { _ = try backend.commit(BackendChanges(values: ["a": .int(Int64(value))])) }
        _ = try backend.load()
        _ = try backend.withExclusiveAccess { _ in (BackendChanges(values: ["b": .int(1)]), ()) }

        #expect(backend.state.withLock { $0.connection.map(ObjectIdentifier.init) } == first)
    }

    @Test func anImmediateWriteAfterTheFileWasRemovedIsInTheFileAtThePath() throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        do {
            let store = try PreferenceStore(.sqlite(at: url), durability: .immediate)
            store.set(1, forKey: "before")
            try store.flush()
            Self.remove(url)
            store.set(2, forKey: "after")
            try store.flush()
            #expect(store.value(forKey: "after", as: Int.self) == 2)
        }
        #expect(try Self.freshKeys(url) == ["after": .int(2)])
    }

    @Test func aWriteAfterABackupWasMovedOverGoesIntoTheBackup() throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        let backup = directory.file("backup.sqlite")
        try Self.makeFile(backup, ["restored": 7])
        do {
            let store = try PreferenceStore(.sqlite(at: url), durability: .immediate)
            store.set(1, forKey: "old")
            try store.flush()
            Self.move(backup, over: url)
            store.set(2, forKey: "new")
            try store.flush()
            #expect(store.value(forKey: "restored", as: Int.self) == 7)
            #expect(store.value(forKey: "old", as: Int.self) == nil)
        }
        #expect(try Self.freshKeys(url) == ["restored": .int(7), "new": .int(2)])
    }

    @Test func aDeferredWriteAfterABackupWasMovedOverGoesIntoTheBackup() throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        let backup = directory.file("backup.sqlite")
        try Self.makeFile(backup, ["restored": 7])
        do {
            let store = try PreferenceStore(.sqlite(at: url))
            store.set(1, forKey: "old")
            try store.flush()
            Self.move(backup, over: url)
            store.set(2, forKey: "new")
            try store.flush()
        }
        #expect(try Self.freshKeys(url) == ["restored": .int(7), "new": .int(2)])
    }

    @Test func anUpdateAfterABackupWasMovedOverStartsFromTheBackup() throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        let backup = directory.file("backup.sqlite")
        try Self.makeFile(backup, ["count": 10])
        let count = StoredKey<Int>("count", default: 0)
        do {
            let store = try PreferenceStore(.sqlite(at: url), durability: .immediate)
            store.set(1, forKey: "count")
            try store.flush()
            Self.move(backup, over: url)
            #expect(try store.update(count) { $0 += 1 } == 11)
        }
        #expect(try Self.freshKeys(url) == ["count": .int(11)])
    }

    @Test func anObserverHearsTheReplacedFilesValuesAsExternalChanges() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        let backup = directory.file("backup.sqlite")
        try Self.makeFile(backup, ["restored": 7, "shared": 2])
        let store = try PreferenceStore(.sqlite(at: url), durability: .immediate)
        store.set(1, forKey: "shared")
        store.set(1, forKey: "old")
        try store.flush()
        let heard = Recorder<Change>()
        let tokens = ["restored", "shared", "old"].map { key in store.observe(key) { heard.append($0) } }
        defer { tokens.forEach { $0.cancel() } }

        Self.move(backup, over: url)

        #expect(await heard.wait(forCount: 3))
        let changes = Dictionary(heard.values.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
        #expect(changes["restored"]?.newValue == .int(7))
        #expect(changes["shared"]?.newValue == .int(2))
        #expect(changes["old"]?.newValue == nil)
        #expect(heard.values.allSatisfy { $0.origin == .external })
        #expect(store.dictionaryRepresentation() == ["restored": .int(7), "shared": .int(2)])
    }

    @Test func anObservedStoreReadsEmptyOnceItsFileIsRemoved() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        let store = try PreferenceStore(.sqlite(at: url), durability: .immediate)
        store.set(1, forKey: "a")
        try store.flush()
        let heard = Recorder<Change>()
        let token = store.observe("a") { heard.append($0) }
        defer { token.cancel() }

        Self.remove(url)

        #expect(await heard.wait(forCount: 1))
        #expect(heard.values.first?.newValue == nil)
        #expect(heard.values.first?.origin == .external)
        #expect(store.value(forKey: "a", as: Int.self) == nil)
        store.set(3, forKey: "b")
        try store.flush()
        #expect(try Self.freshKeys(url)["b"] == .int(3))
    }

    @Test func aDirectoryRemovedAndMadeAgainIsWatchedAgain() async throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("app")
        let url = folder.appending(path: "prefs.sqlite")
        let backend = SQLiteBackend.sqlite(at: url)
        let store = try PreferenceStore(backend, durability: .immediate)
        store.set(1, forKey: "a")
        try store.flush()
        let first = try #require(backend.state.withLock { $0.watcher })
        #expect(!first.isLost)

        try FileManager.default.removeItem(at: folder)
        // Lost, or already replaced: the store's own reload may make the directory again at once.
        #expect(await waitUntil { backend.state.withLock { $0.watcher.map { $0.isLost || $0 !== first } ?? true } })
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.makeFile(url, ["a": 2])

        #expect(await waitUntil { store.value(forKey: "a", as: Int.self) == 2 })
        // Watched with inotify again, not left to the one-second poll for every later commit.
        #expect(await waitUntil { backend.state.withLock { $0.watcher.map { !$0.isLost } ?? false } })
    }

    @Test func watchingAFileWhoseDirectoryIsMissingStartsAndWatchesItOnceMade() async throws {
        let directory = try TemporaryDirectory()
        let backend = SQLiteBackend.sqlite(at: directory.file("app/prefs.sqlite"))
        try backend.startWatching {}  // opening makes the directory, after the watch was looked for
        defer { backend.stopWatching() }
        #expect(await waitUntil { backend.state.withLock { $0.watcher.map { !$0.isLost } ?? false } })
    }
}
