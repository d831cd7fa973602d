import Foundation
import StoredKit
import Testing

/// The nesting limit and refused values: what a backend accepts it loads again, and a refused
/// value is refused alone.
enum LimitChecks {
    static let all: [BackendConformance.Check] = [nestingLimit, acceptedLoadsAgain, refusedAlone]

    /// Arrays nested `depth` deep around an integer.
    static func nested(_ depth: Int) -> StoredValue {
        var value = StoredValue.int(7)
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    /// Dictionaries nested `depth` deep around arrays and a date, one of each per level.
    static func nestedDictionaries(_ depth: Int) -> StoredValue {
        var value = StoredValue.array([.date(Date(timeIntervalSinceReferenceDate: 1)), .string("end")])
        for level in 1..<depth { value = .dictionary(["level \(level)": value, "n": .int(Int64(level))]) }
        return value
    }

    static let nestingLimit = BackendConformance.Check(
        "a value at the nesting limit round-trips; one level more is refused at set", requires: .persistent
    ) { subject in
        let store = try subject.openStore()
        store.set(nested(StoredValue.maximumDepth), forKey: "deepest")
        store.set(nestedDictionaries(StoredValue.maximumDepth), forKey: "deepest dictionaries")
        store.set(1, forKey: "deeper")
        store.set(nested(StoredValue.maximumDepth + 1), forKey: "deeper")
        #expect(store.storedValue(forKey: "deeper") == .int(1), "the refused value replaced the earlier one")
        let reported = store.recentEvents.contains { if case .encodingFailed(key: "deeper", _) = $0 { true } else { false } }
        #expect(reported, "no encodingFailed event for the refused value")
        try store.flush()
        let reloaded = try subject.reload()
        #expect(reloaded.values["deepest"] == nested(StoredValue.maximumDepth))
        #expect(reloaded.values["deepest dictionaries"] == nestedDictionaries(StoredValue.maximumDepth))
        #expect(reloaded.values["deeper"] == .int(1))
    }

    static let acceptedLoadsAgain = BackendConformance.Check(
        "what commit accepts loads again, and what it refuses leaves the whole batch out", requires: .persistent
    ) { subject in
        let backend = try subject.openBackend()
        let batch: [String: StoredValue?] = ["too deep": nested(StoredValue.maximumDepth + 1), "beside it": .int(2)]
        do {
            _ = try backend.commit(BackendChanges(values: batch, durability: .immediate))
            let reloaded = try subject.reload()
            #expect(reloaded.values == batch.compactMapValues { $0 }, "the backend accepted a value it does not load again")
        } catch {
            #expect(try subject.reload().values.isEmpty, "a refused commit was partly applied: \(error)")
        }
    }

    static let refusedAlone = BackendConformance.Check(
        "a refused value is refused alone: the writes around it reach the data", requires: .persistent
    ) { subject in
        let refused = [(key: "refused", value: nested(StoredValue.maximumDepth + 1))] + subject.valuesItCannotHold
        for (index, (key, value)) in refused.enumerated() {
            let store = try subject.openStore()
            store.set("before \(index)", forKey: "before")
            store.set(value, forKey: key)
            #expect(store.storedValue(forKey: key) == nil, "the refused value for '\(key)' was applied")
            store.set("after \(index)", forKey: "after")
            try store.flush()
            store.set("later \(index)", forKey: "later")
            try store.flush()
            let expected: [String: StoredValue] = [
                "before": .string("before \(index)"), "after": .string("after \(index)"), "later": .string("later \(index)"),
            ]
            #expect(try subject.reload().values == expected, "after refusing '\(key)'")
        }
    }
}
