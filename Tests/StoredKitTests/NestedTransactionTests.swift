import Foundation
import Testing

@testable import StoredKit

/// What a nested transaction means (the traps themselves are shown in a child process by
/// ReliabilityTests/NestedCallTests.swift): a savepoint, all or nothing with the outer one.
@Suite("Nested transactions")
struct NestedTransactionTests {
    @Test func innerThrowUndoesOnlyTheInnerWrites() throws {
        let backend = MemoryBackend()
        let store = try PreferenceStore(backend)
        try store.transaction { outer in
            outer.set(1, forKey: "a")
            #expect(throws: Refused.self) {
                try store.transaction { inner in
                    #expect(inner.value(forKey: "a", as: Int.self) == 1)  // sees the outer writes
                    inner.set(2, forKey: "b")
                    throw Refused()
                }
            }
            #expect(outer.value(forKey: "b", as: Int.self) == nil)
            try store.transaction { $0.set(3, forKey: "c") }
            #expect(outer.value(forKey: "c", as: Int.self) == 3)  // a returned savepoint joins the outer
        }
        #expect(try backend.load().values == ["a": .int(1), "c": .int(3)])
    }

    @Test func outerThrowUndoesTheInnerWritesToo() throws {
        let backend = MemoryBackend()
        let store = try PreferenceStore(backend)
        #expect(throws: Refused.self) {
            try store.transaction { _ in
                try store.update(StoredKey<Int>("count", default: 0)) { $0 += 1 }
                throw Refused()
            }
        }
        #expect(try backend.load().values.isEmpty)
        #expect(store.keys.isEmpty)
    }

    @Test func flushInsideABodyThrowsAndTheTransactionStillCommits() throws {
        let directory = try TemporaryDirectory()
        let store = try PreferenceStore(.sqlite(at: directory.database))
        var thrown: (any Error)?
        try store.transaction { tx in
            tx.set(1, forKey: "a")
            do { try store.flush() } catch { thrown = error }
        }
        guard case .insideTransaction(let path, let operation) = thrown as? StoreError else {
            Issue.record("flush inside a body gave \(String(describing: thrown))")
            return
        }
        #expect(path == directory.database.path && operation == "flush()")
        #expect(try PreferenceStore(.sqlite(at: directory.database)).value(forKey: "a", as: Int.self) == 1)
    }

    @Test func plainWriteOnAnImmediateStoreIsCommittedWhenTheTransactionReturnsEvenAfterAThrow() throws {
        let directory = try TemporaryDirectory()
        let store = try PreferenceStore(.sqlite(at: directory.database), durability: .immediate)
        #expect(throws: Refused.self) {
            try store.transaction { tx in
                tx.set(1, forKey: "a")
                store.set(2, forKey: "b")  // not part of the transaction
                throw Refused()
            }
        }
        let reopened = try PreferenceStore(.sqlite(at: directory.database))
        #expect(reopened.value(forKey: "a", as: Int.self) == nil)
        #expect(reopened.value(forKey: "b", as: Int.self) == 2)
    }

    @Test func aKeptTransactionIgnoresWritesAndSaysSo() throws {
        let store = PreferenceStore.inMemory()
        var kept: Transaction?
        try store.transaction { tx in
            tx.set(1, forKey: "a")
            kept = tx
        }
        kept?.set(2, forKey: "a")
        #expect(store.value(forKey: "a", as: Int.self) == 1)
        #expect(kept?.value(forKey: "a", as: Int.self) == 1)  // reads answer what it saw and staged
        #expect(store.recentEvents.contains { "\($0)".contains("'a'") && "\($0)".contains("had ended") })
    }
}
