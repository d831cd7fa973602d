import Foundation
import Synchronization
import Testing

@testable import StoredKit

@Suite("FileLock")
struct FileLockTests {
    @Test func createsAnOwnerOnlyLockFileNextToTheTarget() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let lock = FileLock(guarding: scratch.file("prefs.plist").path)

        let result = try lock.withLock { 42 }

        #expect(result == 42)
        #expect(lock.path == scratch.file("prefs.plist.lock").path)
        #expect(try TemporaryDirectory.mode(of: lock.path) == 0o600)
    }

    @Test func holdersNeverOverlap() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.file("prefs.plist").path
        let trace = Mutex<[String]>([])
        let failures = Mutex(0)

        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<25 {
                do {
                    // Separate lock values, as separate processes would have.
                    try FileLock(guarding: path).withLock {
                        trace.withLock { $0.append("in") }
                        usleep(200)
                        trace.withLock { $0.append("out") }
                    }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }

        let events = trace.withLock { $0 }
        #expect(failures.withLock { $0 } == 0)
        #expect(events.count == 200)
        #expect(events == Array(repeating: ["in", "out"], count: 100).flatMap { $0 })
    }

    @Test func lockFileThatCannotBeOpenedIsATypedError() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let lock = FileLock(guarding: scratch.file("missing/prefs.plist").path)

        let error = try #require(throws: StoreError.self) { try lock.withLock {} }

        guard case .io(let path, let operation, _) = error else { Issue.record("unexpected \(error)"); return }
        #expect(path == lock.path)
        #expect(operation == "open the lock file")
    }
}
