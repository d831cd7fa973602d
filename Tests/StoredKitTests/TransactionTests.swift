import Foundation
import Testing

@testable import StoredKit

struct Refused: Error {}

@Suite("Transactions and update")
struct TransactionTests {
    @Test func transactionCommitsEveryKeyTogether() throws {
        let backend = MemoryBackend()
        let store = try PreferenceStore(backend)
        try store.transaction { tx in
            tx.set(1, forKey: "a")
            tx[.volume] = 0.2
            #expect(tx.value(forKey: "a", as: Int.self) == 1)  // reads see the transaction's writes
        }
        // Committed before `transaction` returned, without a flush.
        #expect(try backend.load().values == ["a": .int(1), "volume": .double(0.2)])
        #expect(store[.volume] == 0.2)
    }

    @Test func throwInsideRollsEverythingBack() throws {
        let backend = MemoryBackend(values: ["a": .int(0)])
        let store = try PreferenceStore(backend)
        let seen = Recorder<Change>()
        let token = store.observe("a") { seen.append($0) }
        #expect(throws: Refused.self) {
            try store.transaction { tx in
                tx.set(1, forKey: "a")
                tx.set(2, forKey: "b")
                throw Refused()
            }
        }
        #expect(store.value(forKey: "a", as: Int.self) == 0)
        #expect(store.value(forKey: "b", as: Int.self) == nil)
        #expect(try backend.load().values == ["a": .int(0)])
        #expect(seen.values.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test func unencodableValueFailsTheWholeTransaction() throws {
        let store = PreferenceStore.inMemory()
        #expect(throws: StoreError.self) {
            try store.transaction { tx in
                tx.set(1, forKey: "a")
                tx.set([1, nil, 3] as [Int?], forKey: "holes")  // a plist cannot hold nil
            }
        }
        #expect(store.keys.isEmpty)
    }

    @Test func updateReturnsTheNewValueAndSeesOtherStoresWrites() throws {
        let first = MemoryBackend()
        let one = try PreferenceStore(first)
        let two = try PreferenceStore(MemoryBackend(sharing: first))
        try one.update(.launchCount) { $0 += 1 }
        let result = try two.update(.launchCount) { $0 += 1 }  // starts from one's committed 1
        #expect(result == 2)
        #expect(try one.update(.launchCount) { $0 += 1 } == 3)
    }

    @Test func manyTasksUpdatingLoseNothing() async throws {
        let first = MemoryBackend()
        let stores = try (0..<4).map { _ in try PreferenceStore(MemoryBackend(sharing: first)) }
        await withTaskGroup(of: Void.self) { group in
            for store in stores {
                group.addTask {
                    for _ in 0..<250 { _ = try? store.update(.launchCount) { $0 += 1 } }
                }
                group.addTask {
                    for _ in 0..<250 { _ = store[.launchCount] }  // readers alongside
                }
            }
        }
        #expect(try first.load().values["launchCount"] == .int(1000))
    }

    @Test func throwingUpdateChangesNothing() throws {
        let store = PreferenceStore.inMemory()
        store[.launchCount] = 7
        #expect(throws: Refused.self) {
            try store.update(.launchCount) { value in
                value = 100
                throw Refused()
            }
        }
        #expect(store[.launchCount] == 7)
    }
}
