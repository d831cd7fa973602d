import Foundation
import Testing

@testable import StoredKit

@Suite("Change notifications", .awaitsChanges)
struct NotificationTests {
    @Test func observerSeesChangesInOrderWithOriginAndNoDuplicates() {
        let store = PreferenceStore.inMemory()
        let seen = Recorder<Change>()
        let token = store.observe("n") { seen.append($0) }
        store.set(1, forKey: "n")
        store.set(1, forKey: "n")  // unchanged: no notification
        store.set(2, forKey: "n")
        store.set(9, forKey: "other")  // another key
        store.removeValue(forKey: "n")
        store.removeValue(forKey: "n")  // already gone: no notification
        #expect(
            seen.values == [
                Change(key: "n", oldValue: nil, newValue: .int(1), origin: .local),
                Change(key: "n", oldValue: .int(1), newValue: .int(2), origin: .local),
                Change(key: "n", oldValue: .int(2), newValue: nil, origin: .local),
            ])
        token.cancel()
    }

    @Test func typedObserverDecodesOldAndNewWithDefaults() {
        let store = PreferenceStore.inMemory()
        let seen = Recorder<String>()
        let token = store.observe(.volume) { seen.append("\($0.oldValue)->\($0.newValue) \($0.origin)") }
        store[.volume] = 0.8
        store.removeValue(forKey: "volume")
        #expect(seen.values == ["0.5->0.8 local", "0.8->0.5 local"])
        withExtendedLifetime(token) {}
    }

    @Test func unchangedWriteDoesNotReachTheBackend() async throws {
        let backend = MemoryBackend(values: ["a": .int(1)])
        let store = try PreferenceStore(backend, durability: .immediate)
        let other = try PreferenceStore(MemoryBackend(sharing: backend))
        let seen = Recorder<Change>()
        let token = other.observe("a") { seen.append($0) }
        store.set(1, forKey: "a")  // same value: nothing to commit, nobody told
        store.set(2, forKey: "a")
        #expect(await seen.wait(forCount: 1))
        try await Task.sleep(for: .milliseconds(100))  // give a stray second notification time to show up
        #expect(seen.values.map(\.newValue) == [.int(2)])
        withExtendedLifetime(token) {}
    }

    @Test func droppingTheTokenStopsTheObserver() {
        let store = PreferenceStore.inMemory()
        let seen = Recorder<Change>()
        var token: ObservationToken? = store.observe("n") { seen.append($0) }
        store.set(1, forKey: "n")
        #expect(token != nil)
        token = nil
        store.set(2, forKey: "n")
        #expect(seen.values.count == 1)
    }

    @Test func cancelIsIdempotent() {
        let store = PreferenceStore.inMemory()
        let seen = Recorder<Change>()
        let token = store.observe("n") { seen.append($0) }
        token.cancel()
        token.cancel()
        store.set(1, forKey: "n")
        #expect(seen.values.isEmpty)
    }

    @Test func changesStreamSeesEveryKey() async {
        let store = PreferenceStore.inMemory()
        let changes = store.changes  // subscribed from here on; changes are buffered
        store.set(1, forKey: "a")
        store.set(2, forKey: "b")
        store.set(2, forKey: "b")  // unchanged: not delivered
        store.removeValue(forKey: "a")
        var iterator = changes.makeAsyncIterator()
        var keys: [String] = []
        for _ in 0..<3 { if let change = await iterator.next() { keys.append(change.key) } }
        #expect(keys == ["a", "b", "a"])
    }

    @Test func valuesStreamStartsWithTheCurrentValue() async {
        let store = PreferenceStore.inMemory()
        store[.launchCount] = 5
        var iterator = store.values(for: .launchCount).makeAsyncIterator()
        #expect(await iterator.next() == 5)
        store[.launchCount] = 6
        #expect(await iterator.next() == 6)
    }

    @Test func otherStoreChangesArriveAsExternal() async throws {
        let first = MemoryBackend()
        let writer = try PreferenceStore(first)
        let reader = try PreferenceStore(MemoryBackend(sharing: first))
        let seen = Recorder<Change>()
        let token = reader.observe("shared") { seen.append($0) }
        writer.set("hello", forKey: "shared")
        try writer.flush()
        #expect(await seen.wait(forCount: 1))
        #expect(seen.values.first == Change(key: "shared", oldValue: nil, newValue: .string("hello"), origin: .external))
        #expect(reader.value(forKey: "shared", as: String.self) == "hello")
        withExtendedLifetime(token) {}
    }

    @Test func concurrentWritersAreObservedInStrictlyIncreasingOrder() async throws {
        let store = PreferenceStore.inMemory()
        let seen = Recorder<Int>()
        let token = store.observe(.launchCount) { seen.append($0.newValue) }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<100 { _ = try? store.update(.launchCount) { $0 += 1 } }
                }
            }
        }
        #expect(store[.launchCount] == 800)
        let values = seen.values
        #expect(values.count == 800)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
        withExtendedLifetime(token) {}
    }

    @Test func observerMayWriteTheStoreWithoutDeadlock() {
        let store = PreferenceStore.inMemory()
        let token = store.observe("a") { change in
            if case .int(let value) = change.newValue { store.set(value * 10, forKey: "b") }
        }
        store.set(4, forKey: "a")
        #expect(store.value(forKey: "b", as: Int.self) == 40)
        withExtendedLifetime(token) {}
    }
}
