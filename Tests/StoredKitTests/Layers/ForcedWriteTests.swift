import Foundation
import Testing

@testable import StoredKit

/// Any write of a forced key is refused and leaves the user's data as it was: set, removeValue and
/// reset report it; update and transaction throw, and a transaction touching one forced key writes nothing.
@Suite("Forced keys refuse writes")
struct ForcedWriteTests {
    static let volume = StoredKey<Double>("volume", default: 0.5)

    func openStore(_ directory: TemporaryDirectory) throws -> PreferenceStore {
        try PreferenceStore(
            .sqlite(at: directory.file("user.sqlite")),
            layers: [
                .forced(.memory(["volume": .double(0.1)], name: "policy")),
                .arguments(["app", "-theme", "light"]),
            ])
    }

    func seed(_ directory: TemporaryDirectory) throws {
        let store = try PreferenceStore(.sqlite(at: directory.file("user.sqlite")))
        store.set(0.9, forKey: "volume")
        store.set(1, forKey: "other")
        try store.flush()
    }

    /// The user's data as another store without layers reads it from disk.
    func userData(_ directory: TemporaryDirectory) throws -> [String: StoredValue] {
        try PreferenceStore(.sqlite(at: directory.file("user.sqlite"))).dictionaryRepresentation()
    }

    func refusals(_ store: PreferenceStore) -> Int {
        store.events {
            if case .forcedWriteRefused(key: "volume", source: .forced(location: "policy")) = $0 { true } else { false }
        }
        .count
    }

    @Test func setRemoveAndResetAreRefusedAndReported() throws {
        let directory = try TemporaryDirectory()
        try seed(directory)
        let store = try openStore(directory)
        let observed = Recorder<Change>()
        let token = store.observe("volume") { observed.append($0) }
        store.set(0.3, forKey: "volume")
        store[Self.volume] = 0.3
        store.removeValue(forKey: "volume")
        Stored(Self.volume, store: store).projectedValue.reset()
        store.removeAll()
        try store.flush()
        #expect(refusals(store) == 5)
        #expect(observed.values.isEmpty)
        #expect(store[Self.volume] == 0.1)
        #expect(store.userValue(forKey: "volume", as: Double.self) == 0.9)
        #expect(try userData(directory) == ["volume": .double(0.9)])  // removeAll took "other" only
        token.cancel()
    }

    @Test func updateAndTransactionThrowAndWriteNothing() throws {
        let directory = try TemporaryDirectory()
        try seed(directory)
        let store = try openStore(directory)
        #expect {
            try store.update(Self.volume) { $0 += 1 }
        } throws: { error in
            guard case StoreError.forced(key: "volume", source: .forced(location: "policy")) = error else { return false }
            return true
        }
        #expect {
            try store.transaction { tx in
                tx.set(2, forKey: "other")
                tx.set("x", forKey: "new")
                tx.removeValue(forKey: "volume")
            }
        } throws: { error in
            if case StoreError.forced(key: "volume", _) = error { true } else { false }
        }
        try store.flush()
        #expect(try userData(directory) == ["volume": .double(0.9), "other": .int(1)])
        #expect(store.value(forKey: "other", as: Int.self) == 1)
    }

    @Test func resetOfAKeyThatIsNotForcedRemovesTheUsersValueAndAnArgumentStillWins() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(directory)
        let theme = Stored(StoredKey<Theme>("theme", default: .dark), store: store)
        theme.wrappedValue = .dark  // stored, but the argument still says light
        #expect(theme.wrappedValue == .light)
        #expect(store.userValue(forKey: "theme", as: String.self) == "dark")
        theme.projectedValue.reset()
        #expect(store.userValue(forKey: "theme", as: String.self) == nil)
        #expect(theme.wrappedValue == .light)
        #expect(theme.projectedValue.source == .arguments)
    }

    @Test func updateReadsTheEffectiveValueAndWritesTheUsersLayer() throws {
        let store = try PreferenceStore(MemoryBackend(), layers: [.defaults(.memory(["count": .int(41)]))])
        let count = StoredKey<Int>("count", default: 0)
        #expect(try store.update(count) { $0 += 1 } == 42)
        #expect(store.userValue(forKey: "count", as: Int.self) == 42)
    }

    @Test func updateUnderAnArgumentReturnsWhatReadsGiveNotWhatItStored() throws {
        let store = try PreferenceStore(MemoryBackend(), layers: [.arguments(["app", "-count", "5"])])
        let count = StoredKey<Int>("count", default: 0)
        #expect(try store.update(count) { $0 += 1 } == 5, "the argument still wins")
        #expect(store.userValue(forKey: "count", as: Int.self) == 6)
        #expect(store[count] == 5)
    }

    /// What `update` returns is what the next read gives (issue 41), for every layer above the
    /// user's that does not lock the key, inside a transaction too; the transaction's own reads
    /// after its write give the same.
    @Test func updateAndTransactionReadsUnderArgumentsAndEnvironmentGiveWhatTheNextReadGives() throws {
        let count = StoredKey<Int>("count", default: 0)
        for layer in [
            PreferenceLayer.arguments(["app", "-count", "5"]), .environment(prefix: "APP_", variables: ["APP_COUNT": "5"]),
        ] {
            let store = try PreferenceStore(MemoryBackend(), layers: [layer])
            #expect(try store.update(count) { $0 += 1 } == 5)
            #expect(store[count] == 5)
            let (joined, inside) = try store.transaction { tx in
                (try store.update(count) { $0 += 10 }, (tx[count], tx.value(forKey: "count", as: Int.self)))
            }
            #expect(joined == 5 && inside.0 == 5 && inside.1 == 5, "\(joined) \(inside)")
            #expect(store[count] == 5 && store.value(forKey: "count", as: Int.self) == 5)
            #expect(store.userValue(forKey: "count", as: Int.self) == 15)
        }
        // Text that does not convert is skipped by reads, so the user's value is what update returns.
        let store = try PreferenceStore(MemoryBackend(), layers: [.arguments(["app", "-count", "many"])])
        #expect(try store.update(count) { $0 += 1 } == 1)
        #expect(store[count] == 1)
    }
}
