import Foundation
import StoredKit

/// The values the round-trip checks store: each storable kind at its edges.
enum ConformanceValues {
    /// One typed write and the typed read that must give the same value back.
    struct Entry: Sendable {
        let key: String
        let write: @Sendable (PreferenceStore) -> Void
        let readsBack: @Sendable (PreferenceStore) -> Bool

        init<Value: Codable & Sendable & Equatable>(_ key: String, _ value: Value) {
            self.key = key
            write = { $0.set(value, forKey: key) }
            readsBack = { $0.value(forKey: key, as: Value.self) == value }
        }

        /// A value compared by its stored form only (NaN is not equal to itself as a `Double`).
        init(storedOnly key: String, _ value: Double) {
            self.key = key
            write = { $0.set(value, forKey: key) }
            readsBack = { $0.value(forKey: key, as: Double.self)?.bitPattern == value.bitPattern }
        }

        /// A key written and then removed again: it must not exist afterwards.
        init(removed key: String) {
            self.key = key
            write = { store in
                store.set("soon gone", forKey: key)
                store.set(String?.none, forKey: key)
            }
            readsBack = { !$0.hasValue(forKey: key) }
        }
    }

    enum Theme: String, Codable, Sendable { case light, dark }
    enum Level: Int, Codable, Sendable { case low = 1, high = 9 }

    struct Profile: Codable, Sendable, Equatable {
        var name: String
        var tags: [String]
        var scores: [String: Double]
        var theme: Theme
        var child: [Profile]
        var avatar: Data?
        var joined: Date
    }

    /// Keys whose entry leaves nothing stored.
    static let absentKeys: Set<String> = ["removed"]

    static let wholeSecond = Date(timeIntervalSince1970: 1_700_000_000)

    static let entries: [Entry] = [
        Entry("true", true), Entry("false", false),
        Entry("int min", Int.min), Entry("int max", Int.max), Entry("zero", 0), Entry("minus one", -1),
        Entry("uint64 max", UInt64.max), Entry("above int64", UInt64(Int64.max) + 1),
        Entry("int8 min", Int8.min), Entry("uint8 max", UInt8.max), Entry("int16 min", Int16.min),
        Entry("uint32 max", UInt32.max),
        Entry("minus zero", -0.0), Entry("infinity", Double.infinity), Entry("minus infinity", -Double.infinity),
        Entry(storedOnly: "nan", .nan), Entry("tiniest", Double.leastNonzeroMagnitude),
        Entry("largest", Double.greatestFiniteMagnitude), Entry("tenth", 0.1), Entry("1e20", 1e20),
        Entry("float", Float(1.5)),
        Entry("empty string", ""), Entry("unicode", "Küche 🏠 ключ 鍵"), Entry("whitespace", " line\nbreak\ttab "),
        Entry("markup", "<dict>&amp; \"quoted\" 'single' ]]>"), Entry("long string", String(repeating: "ab", count: 5_000)),
        Entry("empty data", Data()), Entry("every byte", Data(0...255)),
        Entry("date", wholeSecond), Entry("epoch", Date(timeIntervalSince1970: 0)),
        Entry("url", URL(string: "https://example.com/a%20b?c=d#e")!),  // trap-ok: a literal
        Entry("uuid", UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),  // trap-ok: a literal
        Entry("empty array", [Int]()), Entry("ints", [1, 2, 3]), Entry("nested arrays", [["a"], [], ["b", "c"]]),
        Entry("set", Set(["x", "y", "z"])), Entry("empty dictionary", [String: Int]()),
        Entry("dictionary", ["": 1, "a.b": 2, "ключ": 3, "$date": 4, "$data": 5]),
        Entry("raw string enum", Theme.dark), Entry("raw int enum", Level.high),
        Entry("optional", String?.some("here")), Entry(removed: "removed"),
        Entry(
            "codable",
            Profile(
                name: "Ada", tags: ["a", "b"], scores: ["x": 1.5, "": -0.0], theme: .light,
                child: [Profile(name: "Kid", tags: [], scores: [:], theme: .dark, child: [], avatar: nil, joined: wholeSecond)],
                avatar: Data([1, 2]), joined: wholeSecond)),
        Entry(
            "raw tree",
            StoredValue.dictionary([
                "$data": .string("not data"), "$date": .array([.int(1)]), "list": .array([.dictionary([:]), .array([])]),
            ])),
    ]

    static let subSecondDateEntries: [Entry] = [
        Entry("fraction", Date(timeIntervalSinceReferenceDate: 12.345678)),
        Entry("fraction before 1970", Date(timeIntervalSince1970: -0.25)),
        Entry("fractions in an array", [Date(timeIntervalSinceReferenceDate: 0.5), Date(timeIntervalSinceReferenceDate: 1.125)]),
    ]
}
