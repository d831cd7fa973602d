import Foundation
import StoredKitTestSupport
import Synchronization
import Testing

@testable import StoredKit

/// A backend that merges by when writes were made (``Backend/writeClock``) gets each `set` and
/// removal stamped at the moment it was made, however late it commits: the base of the offline
/// replica's "the change made last wins".
@Suite("Write stamps")
struct WriteStampTests {
    static let start: Int64 = 1_780_000_000_000
    static let hour: Int64 = 3_600_000

    /// A backend that keeps what it commits in memory, records every batch, and fails while told to
    /// (a server that is down). Its clock reads a wall clock the test moves.
    final class StampingBackend: Backend {
        struct State {
            var data = BackendSnapshot()
            var commits: [BackendChanges] = []
            var failuresLeft = 0
            var refusedKey: String?
        }
        let state = Mutex(State())
        let wall = ManualWallClock(WriteStampTests.start)
        let writeClock: HybridLogicalClock?
        let location = "stamping"

        init(clocked: Bool = true) {
            writeClock = clocked ? HybridLogicalClock(physical: wall.read) : nil
        }

        func load() throws -> BackendSnapshot { state.withLock { $0.data } }
        func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
            try state.withLock { state in
                if state.failuresLeft > 0 {
                    state.failuresLeft -= 1
                    throw StoreError.io(path: location, operation: "commit", errno: ECONNREFUSED)
                }
                if let refused = state.refusedKey, changes.values.index(forKey: refused) != nil {
                    throw StoreError.refused(key: refused, reason: "the test refuses it")
                }
                state.data.apply(changes)
                state.commits.append(changes)
                return nil
            }
        }
        func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
            var result: R?
            try state.withLock { state in
                let (changes, value) = try body(state.data)
                state.data.apply(changes)
                state.commits.append(changes)
                result = value
            }
            return result!  // trap-ok: set by the closure, which ran
        }
        func startWatching(_ onChange: @escaping @Sendable () -> Void) throws {}
        func stopWatching() {}

        func advance(_ milliseconds: Int64) { wall.advance(by: milliseconds) }
        var commits: [BackendChanges] { state.withLock { $0.commits } }
    }

    @Test func aDeferredSetIsStampedWhenMadeNotWhenCommitted() throws {
        let backend = StampingBackend()
        let store = try PreferenceStore(backend)
        store.set(1, forKey: "a")
        backend.advance(Self.hour)
        try store.flush()
        #expect(backend.commits.last?.stamps["a"] == HybridTimestamp(milliseconds: Self.start, counter: 0))
    }

    @Test func aWriteKeptPendingThroughFailedCommitsKeepsTheTimeItWasMade() throws {
        let backend = StampingBackend()
        let store = try PreferenceStore(backend)
        backend.state.withLock { $0.failuresLeft = 2 }
        store.set("offline", forKey: "a")
        for _ in 0..<2 {
            backend.advance(24 * Self.hour)  // a day offline between each retry
            #expect(throws: StoreError.self) { try store.flush() }
        }
        try store.flush()
        #expect(backend.commits.count == 1)
        #expect(backend.commits.last?.stamps["a"]?.milliseconds == Self.start)
    }

    @Test func aKeyWrittenAgainBeforeItsCommitCarriesTheLaterStamp() throws {
        let backend = StampingBackend()
        let store = try PreferenceStore(backend)
        store.set(1, forKey: "a")
        backend.advance(10)
        store.set(2, forKey: "a")
        try store.flush()
        #expect(backend.commits.last?.stamps["a"]?.milliseconds == Self.start + 10)
    }

    @Test func removalsAreStampedLikeSets() throws {
        let backend = StampingBackend()
        let store = try PreferenceStore(backend)
        store.set(1, forKey: "a")
        store.set(2, forKey: "b")
        try store.flush()
        backend.advance(5)
        store.removeValue(forKey: "a")
        try store.flush()
        #expect(backend.commits.last?.values["a"] == .some(nil))
        #expect(backend.commits.last?.stamps["a"]?.milliseconds == Self.start + 5)
        backend.advance(5)
        store.removeAll()
        try store.flush()
        #expect(backend.commits.last?.stamps["b"]?.milliseconds == Self.start + 10)
    }

    @Test func aSetAfterTheClockWitnessedAStampFromAheadIsStampedAboveIt() throws {
        let backend = StampingBackend()
        let store = try PreferenceStore(backend)
        let theirs = HybridTimestamp(milliseconds: Self.start + 24 * Self.hour, counter: 3)
        backend.writeClock?.witness(theirs)  // as a replica does with each stamp it reads
        store.set(1, forKey: "a")
        try store.flush()
        #expect(try #require(backend.commits.last?.stamps["a"]) > theirs)
    }

    @Test func theWritesCommittedBesideARefusedOneKeepTheirStamps() throws {
        let backend = StampingBackend()
        let store = try PreferenceStore(backend)
        backend.state.withLock { $0.refusedKey = "bad" }
        store.set(1, forKey: "good")
        store.set(2, forKey: "bad")
        backend.advance(Self.hour)
        #expect(throws: StoreError.self) { try store.flush() }
        let committed = try #require(backend.commits.last)
        #expect(committed.values.keys.sorted() == ["good"])
        #expect(committed.stamps == ["good": HybridTimestamp(milliseconds: Self.start, counter: 0)])
    }

    @Test func aBackendWithoutAClockGetsNoStamps() throws {
        let backend = StampingBackend(clocked: false)
        let store = try PreferenceStore(backend)
        store.set(1, forKey: "a")
        try store.flush()
        #expect(backend.commits.last?.stamps.isEmpty == true)
    }
}
