import Foundation
import Testing

@testable import StoredKit

#if canImport(Glibc)
    import Glibc
#endif

/// Files an attacker or an unlucky user planted where StoredKit creates its own: a symbolic link
/// or a FIFO at the lock path, a link at a SQLite companion file; and the modes of what StoredKit creates.
@Suite("File safety: planted links and the modes of created files")
struct FileSafetyTests {
    @Test func aDanglingLockSymlinkIsRefusedAndItsTargetNeverCreated() throws {
        let directory = try TemporaryDirectory()
        let target = directory.file("elsewhere/x").path
        try FileManager.default.createDirectory(atPath: directory.file("elsewhere").path, withIntermediateDirectories: true)
        let store = directory.file("p.plist").path
        #expect(symlink(target, store + ".lock") == 0)

        let error = try #require(throws: StoreError.self) {
            _ = try PlistBackend(at: URL(fileURLWithPath: store)).commit(BackendChanges(values: ["a": .int(1)]))
        }

        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(!FileManager.default.fileExists(atPath: store))
        guard case .notRegularFile(let path, let found) = error else { Issue.record("unexpected \(error)"); return }
        #expect(path == store + ".lock")
        #expect(found == "a symbolic link")
        #expect(error.description.contains(store + ".lock") && error.description.contains("Remove '\(store).lock'"))
    }

    @Test func aLockSymlinkToAnExistingFileIsRefusedAndTheFileUntouched() throws {
        let directory = try TemporaryDirectory()
        let target = directory.file("victim").path
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        let lock = FileLock(guarding: directory.file("p.plist").path)
        #expect(symlink(target, lock.path) == 0)

        #expect(throws: StoreError.self) { try lock.withLock {} }

        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data("precious".utf8))
    }

    @Test func aFIFOAtTheLockPathIsRefused() throws {
        let directory = try TemporaryDirectory()
        let lock = FileLock(guarding: directory.file("p.plist").path)
        #expect(mkfifo(lock.path, 0o600) == 0)

        let error = try #require(throws: StoreError.self) { try lock.withLock {} }

        guard case .notRegularFile(let path, let found) = error else { Issue.record("unexpected \(error)"); return }
        #expect(path == lock.path)
        #expect(found == "a FIFO")
    }

    /// Opening a FIFO for reading waits for a writer; a store path that is one is refused instead.
    @Test func aFIFOAtTheStorePathIsRefusedInsteadOfWaitedOn() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("p.plist")
        #expect(mkfifo(url.path, 0o600) == 0)

        let error = try #require(throws: StoreError.self) { _ = try PreferenceStore(fileAt: url) }

        guard case .notRegularFile(let path, let found) = error else { Issue.record("unexpected \(error)"); return }
        #expect(path == url.path)
        #expect(found == "a FIFO")
        #expect(FileSystem.firstBytes(of: url.path, count: 8).isEmpty)
    }

    @Test func aSymlinkAtTheWriteAheadLogPathIsNotFollowed() throws {
        let directory = try TemporaryDirectory()
        let target = directory.file("elsewhere-wal").path
        #expect(symlink(target, directory.database.path + "-wal") == 0)

        #expect(throws: StoreError.self) { _ = try SQLiteBackend.sqlite(at: directory.database).load() }

        #expect(!FileManager.default.fileExists(atPath: target))
    }

    /// The plist backend's guard against a `mv backup prefs.plist` that came while it wrote.
    @Test func anAtomicWriteWhoseTargetChangedMeanwhileReplacesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("p.plist").path
        try Data("backup".utf8).write(to: URL(fileURLWithPath: path))

        let written = try AtomicFile.write(Data("stale".utf8), to: path) { false }

        #expect(written == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("backup".utf8))
        #expect(AtomicFile.leftoverTemporaryFiles(of: path).isEmpty)
    }

    @Test func sqliteCreatesMissingDirectoriesPrivate() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("a/b/prefs.sqlite")

        _ = try SQLiteBackend.sqlite(at: url).commit(BackendChanges(values: ["a": .int(1)]))

        #expect(try TemporaryDirectory.mode(of: directory.file("a").path) == 0o700)
        #expect(try TemporaryDirectory.mode(of: directory.file("a/b").path) == 0o700)
    }

    @Test func movingAsideTakesTheCompanionsAlongAndClaimsEveryName() throws {
        let directory = try TemporaryDirectory()
        let path = directory.database.path
        let base = path + ".corrupt-x"
        // Someone else's copy under the second candidate's log name: that candidate is skipped whole.
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: base + "-2-wal"))
        var movedTo: [String] = []
        for round in 0..<3 {
            try Data("db\(round)".utf8).write(to: directory.database)
            try Data("log\(round)".utf8).write(to: URL(fileURLWithPath: path + "-wal"))
            try Data("index\(round)".utf8).write(to: URL(fileURLWithPath: path + "-shm"))
            movedTo.append(try FileSystem.moveAside(path, companions: ["-wal", "-shm"], toNameBasedOn: base))
        }

        #expect(movedTo == [base, base + "-3", base + "-4"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: base + "-2-wal")) == Data("theirs".utf8))
        #expect(!FileManager.default.fileExists(atPath: base + "-2"))
        for (round, target) in movedTo.enumerated() {
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data("db\(round)".utf8))
            #expect(try Data(contentsOf: URL(fileURLWithPath: target + "-wal")) == Data("log\(round)".utf8))
            #expect(try Data(contentsOf: URL(fileURLWithPath: target + "-shm")) == Data("index\(round)".utf8))
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func sqliteQuarantinesInOneSecondKeepEveryCopyAndReopenPrivate() throws {
        let directory = try TemporaryDirectory()
        var movedTo: [String] = []
        for round in 0..<3 {
            try Data(repeating: UInt8(round), count: 4096).write(to: directory.database)
            let snapshot = try SQLiteBackend.sqlite(at: directory.database).load()
            guard case .quarantined(_, let target, _) = snapshot.events.first else {
                Issue.record("expected a quarantine event, got \(snapshot.events)")
                return
            }
            movedTo.append(target)
            // The file opened in its place is as private as any new store file.
            #expect(try TemporaryDirectory.mode(of: directory.database.path) == 0o600)
        }

        #expect(Set(movedTo).count == 3)
        for (round, target) in movedTo.enumerated() {
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data(repeating: UInt8(round), count: 4096))
        }
    }

    @Test func theMigrationImporterUsesNoSystemLibraryDirectly() throws {
        let source = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Sources/StoredKit/Migration/MigrationContext+Import.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        #expect(!text.contains("import Glibc"))
    }
}
