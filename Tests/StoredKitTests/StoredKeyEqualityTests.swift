import Foundation
import Testing

@testable import StoredKit

/// Keys can go in a `Set` and be dictionary keys: equal when they name the same value as the same type.
@Suite("StoredKey equality")
struct StoredKeyEqualityTests {
    @Test func sameNameAndTypeAreEqualWhateverTheDefault() {
        let a = StoredKey<Int>("count", default: 0)
        let b = StoredKey<Int>("count", default: 7)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
    }

    @Test func otherNameOrOtherTypeDiffer() {
        let count = StoredKey<Int>("count", default: 0)
        #expect(count != StoredKey<Int>("total", default: 0))
        let keys: Set<StoredKeys> = [count, StoredKey<String>("count", default: ""), StoredKey<Int?>("count")]
        #expect(keys.count == 3)
    }

    @Test func keysIndexADictionary() {
        let labels: [StoredKeys: String] = [StoredKey<Double>("volume", default: 0.5): "Volume"]
        #expect(labels[StoredKey<Double>("volume", default: 1)] == "Volume")
    }
}
