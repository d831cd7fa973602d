import Foundation
import StoredKit
import Testing

/// Commits and exclusive access: all or nothing, on the freshest data, and durable when asked.
enum CommitChecks {
    static let all: [BackendConformance.Check] = [
        batchIsAllOrNothing, throwingExclusiveAccessCommitsNothing, exclusiveAccessSeesOtherInstances,
        commitReturnsFreshSnapshot, throwingTransactionCommitsNothing, immediateWriteIsDurable,
        concurrentUpdatesLoseNothing,
    ]

    static let batchIsAllOrNothing = BackendConformance.Check(
        "a commit applies every key of its batch, removals and schema version included", requires: .persistent
    ) { subject in
        let backend = try subject.openBackend()
        let first = Dictionary(uniqueKeysWithValues: (0..<300).map { ("k\($0)", StoredValue?.some(.int(Int64($0)))) })
        _ = try backend.commit(BackendChanges(values: first, durability: .immediate))
        #expect(try subject.reload().values == first.compactMapValues { $0 })

        var second: [String: StoredValue?] = [:]
        for index in 0..<150 { second["k\(index)"] = .some(nil) }
        for index in 300..<350 { second["k\(index)"] = .some(.string("new \(index)")) }
        _ = try backend.commit(BackendChanges(values: second, schemaVersion: 3, durability: .immediate))
        let reloaded = try subject.reload()
        var expected = first.compactMapValues { $0 }
        for (key, value) in second { expected[key] = value }
        #expect(reloaded.values == expected)
        #expect(reloaded.schemaVersion == 3)
    }

    static let throwingExclusiveAccessCommitsNothing = BackendConformance.Check(
        "withExclusiveAccess commits nothing when its body throws, and releases the exclusion", requires: .persistent
    ) { subject in
        struct Refusal: Error {}
        let backend = try subject.openBackend()
        _ = try backend.commit(BackendChanges(values: ["a": .int(1)], durability: .immediate))
        #expect(throws: Refusal.self) {
            try backend.withExclusiveAccess { snapshot -> (BackendChanges, Void) in
                #expect(snapshot.values["a"] == .int(1))
                throw Refusal()
            }
        }
        #expect(try subject.reload().values == ["a": .int(1)])
        // The exclusion was released: another instance gets it and commits.
        let other = try subject.openBackend()
        try other.withExclusiveAccess { _ in (BackendChanges(values: ["b": .int(2)], durability: .immediate), ()) }
        #expect(try subject.reload().values == ["a": .int(1), "b": .int(2)])
    }

    static let exclusiveAccessSeesOtherInstances = BackendConformance.Check(
        "withExclusiveAccess runs on the freshest data, other instances' commits included",
        requires: [.persistent, .sharedBetweenInstances]
    ) { subject in
        let mine = try backendBehindAnotherInstancesCommit(subject)
        let seen = try mine.withExclusiveAccess { snapshot in
            (BackendChanges(values: ["mine": .int(2)], durability: .immediate), snapshot.values["theirs"])
        }
        #expect(seen == .int(1))
        #expect(try subject.reload().values == ["theirs": .int(1), "mine": .int(2)])
    }

    static let commitReturnsFreshSnapshot = BackendConformance.Check(
        "a commit after another instance's write returns the complete fresh data",
        requires: [.persistent, .sharedBetweenInstances]
    ) { subject in
        let mine = try backendBehindAnotherInstancesCommit(subject)
        let fresh = try mine.commit(BackendChanges(values: ["mine": .int(2)], durability: .immediate))
        let snapshot = try #require(fresh, "commit returned nil although another instance had written")
        #expect(snapshot.values == ["theirs": .int(1), "mine": .int(2)])
    }

    /// A backend that has loaded the data, after which another instance committed `theirs = 1`.
    private static func backendBehindAnotherInstancesCommit(_ subject: any ConformanceSubject) throws -> any Backend {
        let mine = try subject.openBackend()
        _ = try mine.load()
        let theirs = try subject.openBackend()
        _ = try theirs.commit(BackendChanges(values: ["theirs": .int(1)], durability: .immediate))
        return mine
    }

    static let throwingTransactionCommitsNothing = BackendConformance.Check(
        "a store transaction commits every key or, when its body throws, none", requires: .persistent
    ) { subject in
        struct Refusal: Error {}
        let store = try subject.openStore()
        try store.transaction { tx in
            tx.set(1, forKey: "a")
            tx.set("two", forKey: "b")
        }
        #expect(throws: Refusal.self) {
            try store.transaction { tx in
                tx.set(10, forKey: "a")
                tx.removeValue(forKey: "b")
                tx.set(true, forKey: "c")
                throw Refusal()
            }
        }
        #expect(store.dictionaryRepresentation() == ["a": .int(1), "b": .string("two")])
        #expect(try subject.reload().values == ["a": .int(1), "b": .string("two")])
    }

    static let immediateWriteIsDurable = BackendConformance.Check(
        "an immediate write is committed when set returns", requires: .persistent
    ) { subject in
        let store = try subject.openStore(durability: .immediate)
        store.set(42, forKey: "answer")
        #expect(try subject.reload().values["answer"] == .int(42))
        store.removeValue(forKey: "answer")
        #expect(try subject.reload().values["answer"] == nil)
    }

    static let concurrentUpdatesLoseNothing = BackendConformance.Check(
        "updates from two instances at once lose no increment", requires: [.persistent, .sharedBetweenInstances]
    ) { subject in
        let stores = try [subject.openStore(), subject.openStore()]
        let counter = StoredKey<Int>("counter", default: 0)
        let failures = Received<String>()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            for _ in 0..<100 {
                do { try stores[index].update(counter) { $0 += 1 } } catch { failures.append("\(error)") }
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try subject.reload().values["counter"] == .int(200))
    }
}
