import Foundation
import Synchronization
import Testing

@testable import StoredKit

/// Every watcher of the process shares one inotify descriptor; these check the sharing.
@Suite("DirectoryWatcher")
struct DirectoryWatcherTests {
    @Test func cancellingOneWatcherOfADirectoryKeepsTheOthers() async throws {
        let directory = try TemporaryDirectory()
        let first = Mutex(0)
        let second = Mutex(0)
        let cancelled = try DirectoryWatcher(directory: directory.path, fileNames: ["f"]) { first.withLock { $0 += 1 } }
        let kept = try DirectoryWatcher(directory: directory.path, fileNames: ["f"]) { second.withLock { $0 += 1 } }
        cancelled.cancel()

        try Data("1".utf8).write(to: directory.file("f"))

        #expect(await waitUntil { second.withLock { $0 } > 0 })
        #expect(first.withLock { $0 } == 0)
        #expect(!kept.isLost)
        #expect(cancelled.isLost)
    }

    @Test func onlyTheNamedFilesAreReported() async throws {
        let directory = try TemporaryDirectory()
        let calls = Mutex(0)
        let watcher = try DirectoryWatcher(directory: directory.path, fileNames: ["f"]) { calls.withLock { $0 += 1 } }
        try Data("1".utf8).write(to: directory.file("other"))
        try Data("1".utf8).write(to: directory.file("f"))

        #expect(await waitUntil { calls.withLock { $0 } > 0 })
        withExtendedLifetime(watcher) {}
    }

    @Test(arguments: [false, true])
    func aRemovedOrMovedDirectoryIsReportedAndTheWatcherLost(moved: Bool) async throws {
        let parent = try TemporaryDirectory()
        let directory = parent.file("watched")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let calls = Mutex(0)
        let watcher = try DirectoryWatcher(directory: directory.path, fileNames: ["f"]) { calls.withLock { $0 += 1 } }
        #expect(!watcher.isLost)

        if moved {
            try FileManager.default.moveItem(at: directory, to: parent.file("elsewhere"))
        } else {
            try FileManager.default.removeItem(at: directory)
        }

        #expect(await waitUntil { watcher.isLost })
        // The watch is marked lost before its subscribers are called, outside the hub's lock.
        #expect(await waitUntil { calls.withLock { $0 } > 0 })
    }
}
