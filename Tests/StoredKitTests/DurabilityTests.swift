import Foundation
import Testing

@testable import StoredKit

@Suite("Durability: deferred and immediate")
struct DurabilityTests {
    @Test func deferredWritesAreCommittedSoonAsOneBatch() async throws {
        let backend = MemoryBackend()
        let store = try PreferenceStore(backend)
        for index in 0..<100 { store.set(index, forKey: "k\(index)") }
        #expect(try backend.load().values.isEmpty)  // coalesced: nothing committed yet
        let landed = try await waitUntil { try backend.load().values.count == 100 }
        #expect(landed)
        withExtendedLifetime(store) {}
    }

    @Test func flushCommitsEverythingNow() throws {
        let backend = MemoryBackend()
        let store = try PreferenceStore(backend)
        store.set("a", forKey: "x")
        store.removeValue(forKey: "missing")
        try store.flush()
        #expect(try backend.load().values == ["x": .string("a")])
    }

    @Test func immediateWritesAreCommittedBeforeSetReturns() throws {
        let backend = MemoryBackend()
        let store = try PreferenceStore(backend, durability: .immediate)
        store.set(42, forKey: "answer")
        #expect(try backend.load().values["answer"] == .int(42))
    }

    @Test func releasingTheStoreFlushesIt() throws {
        let backend = MemoryBackend()
        do {
            let store = try PreferenceStore(backend)
            store.set(true, forKey: "saved")
        }
        #expect(try backend.load().values["saved"] == .bool(true))
    }
}
