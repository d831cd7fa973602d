import Foundation
import StoredKit
import Testing

/// Damaged data follows the corruption policy: moved aside and reported, or a failed open.
enum CorruptionChecks {
    static let all: [BackendConformance.Check] = [quarantine, fail]

    static let quarantine = BackendConformance.Check(
        "damaged data is moved aside and reported; the store opens empty and accepts writes",
        requires: [.persistent, .detectsCorruption]
    ) { subject in
        try seed(subject)
        try subject.damage()
        let store = try subject.openStore(durability: .immediate, corruption: .quarantine)
        #expect(store.keys.isEmpty)
        let quarantined = store.recentEvents.contains { if case .quarantined = $0 { true } else { false } }
        #expect(quarantined, "no quarantined event in \(store.recentEvents)")
        store.set("after", forKey: "fresh")
        #expect(try subject.reload().values == ["fresh": .string("after")])
    }

    static let fail = BackendConformance.Check(
        "with the fail policy, damaged data fails the open and is left as it was",
        requires: [.persistent, .detectsCorruption]
    ) { subject in
        try seed(subject)
        try subject.damage()
        for _ in 0..<2 {  // the first failed open must not have repaired or removed anything
            #expect {
                _ = try subject.openStore(corruption: .fail)
            } throws: { error in
                guard case StoreError.corruptFile = error else { return false }
                return true
            }
        }
    }

    /// Writes through a backend released right here, not through a store: a released store can
    /// live on for a moment in a reload running on another thread, and its late close (SQLite
    /// checkpointing its WAL into the file) would undo the damage that follows.
    private static func seed(_ subject: any ConformanceSubject) throws {
        let backend = try subject.openBackend()
        _ = try backend.load()
        let values = Dictionary(uniqueKeysWithValues: (0..<20).map { ("key \($0)", StoredValue?.some(.string("value \($0)"))) })
        _ = try backend.commit(BackendChanges(values: values, durability: .immediate))
    }
}
