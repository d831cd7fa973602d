import Foundation
import Testing

@testable import StoredKit

/// Values as deep as ``StoredValue/maximumDepth`` (512, Foundation's JSON limit) are stored, read
/// and written exactly by every backend, with walks whose depth does not depend on the thread's
/// stack: every read and write here runs on a thread with a 256 KiB stack, half of what Dispatch
/// and Swift concurrency give a thread.
@Suite("Values 512 levels deep")
struct DeepValueTests {
    static let smallStack = 256 * 1024

    /// One value of each shape at the limit: arrays, dictionaries, and both mixed around a date.
    static var atTheLimit: [String: StoredValue] {
        // A whole second: XML plists keep dates to the second.
        var mixed = StoredValue.date(Date(timeIntervalSinceReferenceDate: 12))
        for level in 0..<StoredValue.maximumDepth {
            mixed =
                level.isMultiple(of: 2)
                ? .array([.int(Int64(level)), mixed]) : .dictionary(["k\(level)": mixed, "n": .bool(true)])
        }
        return [
            "arrays": DeepValue.arrays(StoredValue.maximumDepth),
            "dictionaries": DeepValue.dictionaries(StoredValue.maximumDepth),
            "mixed": mixed,
            "beside": .string("kept"),
        ]
    }

    @Test(arguments: NestingBackendKind.allCases)
    func valuesAtTheLimitRoundTripOnASmallStack(kind: NestingBackendKind) throws {
        let directory = try TemporaryDirectory()
        let values = Self.atTheLimit
        let outcome = onSmallStack(Self.smallStack) { () -> (events: String, read: [String: StoredValue]) in
            let open = kind.opener(in: directory)
            do {
                do {
                    let store = try PreferenceStore(open())
                    for (key, value) in values { store.setStoredValue(value, forKey: key) }
                    store.setStoredValue(DeepValue.arrays(StoredValue.maximumDepth + 1), forKey: "beyond")
                    try store.flush()
                    guard store.recentEvents.count == 1 else { return ("\(store.recentEvents)", [:]) }
                }
                let store = try PreferenceStore(open())
                let read = store.keys.compactMap { key in store.storedValue(forKey: key).map { (key, $0) } }
                return ("\(store.recentEvents)", Dictionary(uniqueKeysWithValues: read))
            } catch {
                return ("\(error)", [:])
            }
        }
        #expect(outcome.events == "[]")
        // Compared, not printed: a failure message would hold every level.
        let matches = outcome.read == values
        #expect(matches, "read back: \(outcome.read.keys.sorted())")
    }

    @Test(arguments: [PlistFormat.xml, .binary])
    func plistFilesAtTheLimitAreReadAndWrittenOnASmallStack(format: PlistFormat) throws {
        let root = StoredValue.dictionary(Self.atTheLimit)
        let outcome = onSmallStack(Self.smallStack) { () -> Bool in
            guard let data = try? PlistCodec.encode(root, format: format) else { return false }
            return (try? PlistCodec.decode(data, path: "deep.plist")) == root
        }
        #expect(outcome)
    }

    @Test func jsonAtTheLimitIsReadAndWrittenOnASmallStack() throws {
        let values = Self.atTheLimit
        let outcome = onSmallStack(Self.smallStack) { () -> [Bool] in
            values.values.flatMap { value in
                [false, true].map { pretty in
                    (try? StoredValueJSON.decode(StoredValueJSON.encode(value, prettyPrinted: pretty))) == value
                }
            }
        }
        #expect(outcome.allSatisfy { $0 }, "\(outcome)")
        // What JSONSerialization writes at its own limit reads back the same.
        let foundation = String(repeating: "[", count: 512) + "1" + String(repeating: "]", count: 512)
        #expect(try JSONSerialization.jsonObject(with: Data(foundation.utf8)) is [Any])
        #expect(try StoredValueJSON.decode(foundation) == DeepValue.arrays(512, innermost: .int(1)))
    }

    /// A stored value deeper than Codable types may nest decodes to nothing, is reported, and stays stored.
    @Test func decodingADeepStoredValueIntoACodableTypeFailsAndKeepsTheData() throws {
        let directory = try TemporaryDirectory()
        let deep = try StoredValueEncoder().encode(NestingNode.chain(StoredValue.maximumCodableDepth))
        var deeper = deep
        for _ in 0..<(StoredValue.maximumDepth - StoredValue.maximumCodableDepth) { deeper = .dictionary(["next": deeper]) }
        do {
            let store = try PreferenceStore(.sqlite(at: directory.database))
            store.setStoredValue(deeper, forKey: "node")
            store.setStoredValue(deep, forKey: "fits")
            try store.flush()
        }
        let store = try PreferenceStore(.sqlite(at: directory.database))
        #expect(store.value(forKey: "fits", as: NestingNode.self) != nil)
        #expect(store.value(forKey: "node", as: NestingNode.self) == nil)
        #expect(
            store.recentEvents.contains { event in
                guard case .decodingFailed(let key, _, _) = event else { return false }
                return key == "node"
            }, "\(store.recentEvents)")
        #expect(store.storedValue(forKey: "node") == deeper)
        let reopened = try PreferenceStore(.sqlite(at: directory.database))
        #expect(reopened.storedValue(forKey: "node") == deeper)
    }

    /// Releasing a tree is the Swift runtime's recursion (an enum cannot have a `deinit`): one at
    /// the limit, the deepest StoredKit ever builds, is released on the small stack.
    @Test func aValueAtTheLimitIsReleasedOnASmallStack() {
        let released = onSmallStack(Self.smallStack) { () -> Bool in
            var values: [StoredValue]? = Array(Self.atTheLimit.values)
            let count = values?.count
            values = nil
            return count == 4 && values == nil
        }
        #expect(released)
    }

    /// An SQLite row that another program filled with valid JSON nested deeper than the limit is
    /// kept and reported as too deep, not as damage (as a too-deep plist file is unsupported, not corrupt).
    @Test func aRowHoldingJSONTooDeepIsKeptAndToldApartFromDamage() throws {
        let directory = try TemporaryDirectory()
        let tooDeep = String(repeating: "[", count: 600) + "1" + String(repeating: "]", count: 600)
        let truncated = String(repeating: "[", count: 600) + "1"
        do {
            let store = try PreferenceStore(.sqlite(at: directory.database))
            for key in ["deep", "broken"] { store.setStoredValue(.array([.int(1)]), forKey: key) }
            try store.flush()
        }
        do {
            let connection = try SQLiteConnection(path: directory.database.path)
            try connection.run("UPDATE preferences SET value = '\(tooDeep)' WHERE key = 'deep'")
            try connection.run("UPDATE preferences SET value = '\(truncated)' WHERE key = 'broken'")
        }
        let store = try PreferenceStore(.sqlite(at: directory.database))
        #expect(store.storedValue(forKey: "deep") == nil)
        var found: [String: String] = [:]
        for case .decodingFailed(let key, _, let what) in store.recentEvents { found[key] = what }
        #expect(found["deep"] == StoredValueJSON.tooDeepFound)
        #expect(found["broken"]?.hasPrefix("text '[[[[") == true, "\(found)")
        let connection = try SQLiteConnection(path: directory.database.path, readOnly: true)
        #expect(try connection.scalar("SELECT value FROM preferences WHERE key = 'deep'") == .text(tooDeep))
    }

    @Test func nestingIsToldWithoutBuildingValues() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(onSmallStack(Self.smallStack) { StoredValueJSON.nestsTooDeep(deep) })
        #expect(!StoredValueJSON.nestsTooDeep(String(repeating: "[", count: 100_000)))
        #expect(!StoredValueJSON.nestsTooDeep(StoredValueJSON.encode(DeepValue.arrays(StoredValue.maximumDepth))))
        #expect(StoredValueJSON.nestsTooDeep(StoredValueJSON.encode(DeepValue.arrays(StoredValue.maximumDepth + 1))))
    }
}
