import Foundation
import Synchronization
import Testing

@testable import StoredKit

/// A linked list of classes: Codable recursion the library cannot avoid, only cut short.
final class NestingNode: Codable, Sendable {
    let next: NestingNode?
    init(next: NestingNode?) { self.next = next }

    /// A list `length` nodes long, which encodes as `length` nested dictionaries.
    static func chain(_ length: Int) -> NestingNode {
        var node = NestingNode(next: nil)
        for _ in 1..<length { node = NestingNode(next: node) }
        return node
    }
}

/// Values nested exactly `depth` levels deep, built without recursion.
enum DeepValue {
    static func arrays(_ depth: Int, innermost: StoredValue = .int(7)) -> StoredValue {
        var value = innermost
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    static func dictionaries(_ depth: Int, innermost: StoredValue = .string("end")) -> StoredValue {
        var value = innermost
        for level in 0..<depth { value = .dictionary(["level\(level % 3)": value]) }
        return value
    }
}

/// The four backends every store can use, reopened from the same place.
enum NestingBackendKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, plistXML, plistBinary, sqlite

    var testDescription: String { rawValue }

    /// A factory that opens a fresh backend over the same data each time it is called.
    func opener(in directory: TemporaryDirectory) -> () -> any Backend {
        switch self {
        case .memory:
            let shared = MemoryBackend()
            return { MemoryBackend(sharing: shared) }
        case .plistXML: return { PlistBackend(at: directory.file("prefs.plist"), format: .xml) }
        case .plistBinary: return { PlistBackend(at: directory.file("prefs.plist"), format: .binary) }
        case .sqlite: return { SQLiteBackend(at: directory.database) }
        }
    }
}

@Suite("Nesting limit")
struct NestingLimitTests {
    // Defect 1: this crashed `set` with SIGSEGV in the encoder.
    @Test func aTenThousandDeepCodableValueIsRefusedAtSetWithoutCrashing() {
        let store = PreferenceStore.inMemory()
        store.set(1, forKey: "deep")
        store.set(NestingNode.chain(10_000), forKey: "deep")
        #expect(store.value(forKey: "deep", as: Int.self) == 1)
        guard case .encodingFailed(let key, let reason)? = store.recentEvents.last else {
            Issue.record("expected encodingFailed, got \(store.recentEvents)")
            return
        }
        #expect(key == "deep")
        #expect(reason.contains("deeper than \(StoredValue.maximumCodableDepth) levels"))
        #expect(reason.contains("StoredValue.maximumCodableDepth"))
    }

    @Test func theEncoderAcceptsTheCodableLimitAndRefusesOneMore() throws {
        let limit = StoredValue.maximumCodableDepth
        let atLimit = try StoredValueEncoder().encode(NestingNode.chain(limit))
        #expect(!atLimit.isNested(deeperThan: limit))
        #expect(atLimit.isNested(deeperThan: limit - 1))
        #expect(throws: StoreError.self) { try StoredValueEncoder().encode(NestingNode.chain(limit + 1)) }
        // Collections on the direct path and nested containers count the same way.
        #expect(throws: StoreError.self) {
            try StoredValueEncoder().encode(DeepArrays(depth: limit + 1))
        }
        let arrays = try StoredValueEncoder().encode(DeepArrays(depth: limit))
        #expect(arrays == DeepValue.arrays(limit - 1, innermost: .array([])))
    }

    @Test func theDecoderRefusesAHandBuiltValueTooDeepWithoutCrashing() throws {
        var tooDeep = StoredValue.dictionary([:])
        for _ in 0..<10_000 { tooDeep = .dictionary(["next": tooDeep]) }
        #expect(throws: StoreError.self) { try StoredValueDecoder().decode(NestingNode.self, from: tooDeep) }
        let atLimit = try StoredValueEncoder().encode(NestingNode.chain(StoredValue.maximumCodableDepth))
        _ = try StoredValueDecoder().decode(NestingNode.self, from: atLimit)
        // A value StoredKit stores, but deeper than a Codable type may be: a decode failure, no crash.
        var stored = StoredValue.dictionary([:])
        for _ in 1..<StoredValue.maximumDepth { stored = .dictionary(["next": stored]) }
        #expect(throws: StoreError.self) { try StoredValueDecoder().decode(NestingNode.self, from: stored) }
    }

    @Test func jsonReadsTheLimitAndRefusesOneMore() throws {
        let atLimit = DeepValue.arrays(StoredValue.maximumDepth)
        #expect(try StoredValueJSON.decode(StoredValueJSON.encode(atLimit)) == atLimit)
        // A tagged scalar is one JSON object deeper than the value it stands for.
        let date = DeepValue.arrays(StoredValue.maximumDepth, innermost: .date(Date(timeIntervalSince1970: 5)))
        #expect(try StoredValueJSON.decode(StoredValueJSON.encode(date)) == date)
        let empty = DeepValue.dictionaries(StoredValue.maximumDepth - 1, innermost: .dictionary([:]))
        #expect(try StoredValueJSON.decode(StoredValueJSON.encode(empty)) == empty)
        for beyond in [
            DeepValue.arrays(StoredValue.maximumDepth + 1), DeepValue.dictionaries(StoredValue.maximumDepth + 1),
            DeepValue.dictionaries(StoredValue.maximumDepth, innermost: .dictionary([:])),
        ] {
            #expect(throws: StoreError.self) { try StoredValueJSON.decode(StoredValueJSON.encode(beyond)) }
        }
    }

    @Test(arguments: [PlistFormat.xml, .binary])
    func plistReadsAStoreAtTheLimitAndRefusesOneMore(format: PlistFormat) throws {
        let atLimit = StoredValue.dictionary(["deep": DeepValue.dictionaries(StoredValue.maximumDepth)])
        #expect(try PlistCodec.decode(PlistCodec.encode(atLimit, format: format), path: "a.plist") == atLimit)
        let beyond = StoredValue.dictionary(["deep": DeepValue.arrays(StoredValue.maximumDepth + 1)])
        #expect(throws: StoreError.self) { try PlistCodec.encode(beyond, format: format) }
        // An empty container is a level like any other (issue 41: XML wrote and read an empty
        // innermost `<array/>` one level deeper than binary, than JSON and than `set`).
        let emptyAtLimit = StoredValue.dictionary(["deep": DeepValue.arrays(StoredValue.maximumDepth - 1, innermost: .array([]))])
        #expect(try PlistCodec.decode(PlistCodec.encode(emptyAtLimit, format: format), path: "a.plist") == emptyAtLimit)
        let emptyBeyond = StoredValue.dictionary(["deep": DeepValue.arrays(StoredValue.maximumDepth, innermost: .array([]))])
        #expect(emptyBeyond.isNested(deeperThan: StoredValue.maximumDepth))
        #expect(throws: StoreError.self) { try PlistCodec.encode(emptyBeyond, format: format) }
    }

    @Test func anXMLFileWithAnEmptyContainerOneLevelTooDeepIsRefusedAsBinaryIs() throws {
        let limit = StoredValue.maximumDepth
        for empty in ["<array/>", "<dict/>", "<array></array>"] {
            let xml =
                "<plist><dict><key>deep</key>" + String(repeating: "<array>", count: limit) + empty
                + String(repeating: "</array>", count: limit) + "</dict></plist>"
            #expect {
                try PlistCodec.decode(Data(xml.utf8), path: "deep.plist")
            } throws: { error in
                guard case StoreError.unsupportedFile(_, let reason, _) = error else { return false }
                return reason.contains(StoredValue.tooDeepPhrase)
            }
        }
        #expect(StoredValueJSON.nestsTooDeep(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)))
        #expect(!StoredValueJSON.nestsTooDeep(String(repeating: "[", count: limit) + String(repeating: "]", count: limit)))
    }

    // Defects 1 and 3, on every backend: at the limit round-trips through a reopened store, one
    // more is refused at set (SQLite used to accept it and lose it at the next open).
    @Test(arguments: NestingBackendKind.allCases)
    func aValueAtTheLimitRoundTripsAndOneMoreIsRefusedAtSet(kind: NestingBackendKind) throws {
        let directory = try TemporaryDirectory()
        let open = kind.opener(in: directory)
        let atLimit = DeepValue.dictionaries(StoredValue.maximumDepth)
        let arrays = DeepValue.arrays(StoredValue.maximumDepth, innermost: .date(Date(timeIntervalSince1970: 1)))
        do {
            let store = try PreferenceStore(open())
            store.setStoredValue(atLimit, forKey: "limit")
            store.setStoredValue(arrays, forKey: "arrays")
            store.set(NestingNode.chain(StoredValue.maximumCodableDepth), forKey: "node")
            store.set(1, forKey: "beyond")
            store.setStoredValue(DeepValue.arrays(StoredValue.maximumDepth + 1), forKey: "beyond")
            #expect(store.storedValue(forKey: "beyond") == .int(1))
            guard case .encodingFailed(let key, _)? = store.recentEvents.last else {
                Issue.record("expected encodingFailed, got \(store.recentEvents)")
                return
            }
            #expect(key == "beyond")
            try store.flush()
        }
        let reopened = try PreferenceStore(open())
        #expect(reopened.storedValue(forKey: "limit") == atLimit)
        #expect(reopened.storedValue(forKey: "arrays") == arrays)
        #expect(reopened.value(forKey: "node", as: NestingNode.self) != nil)
        #expect(reopened.storedValue(forKey: "beyond") == .int(1))
        #expect(reopened.recentEvents.isEmpty, "\(reopened.recentEvents)")
    }

    // Defect 3 as found: SQLite accepted a 600-deep value, and after reopening the key was gone.
    @Test func sqliteRefusesA600DeepValueAtSetAndKeepsTheEarlierOne() throws {
        let directory = try TemporaryDirectory()
        do {
            let store = try PreferenceStore(.sqlite(at: directory.database))
            store.set("kept", forKey: "deep")
            store.setStoredValue(DeepValue.arrays(600), forKey: "deep")
            try store.flush()
        }
        let reopened = try PreferenceStore(.sqlite(at: directory.database))
        #expect(reopened.value(forKey: "deep", as: String.self) == "kept")
    }

    @Test func aBackendCalledDirectlyRefusesTooDeepValues() throws {
        let directory = try TemporaryDirectory()
        let tooDeep = DeepValue.arrays(StoredValue.maximumDepth + 1)
        for backend in [SQLiteBackend(at: directory.database), PlistBackend(at: directory.file("p.plist"))] as [any Backend] {
            #expect(throws: StoreError.self) { try backend.commit(BackendChanges(values: ["deep": tooDeep])) }
        }
    }

    /// Every walk at the limit, on a thread with half the 512 KiB stack of Dispatch and the
    /// cooperative pool, in whatever build the tests run (debug under `swift test`).
    @Test func everyWalkAtTheLimitFitsA256KiBStack() throws {
        let limit = StoredValue.maximumDepth
        let arrays = DeepValue.arrays(limit)
        let dictionaries = DeepValue.dictionaries(limit)
        let root = StoredValue.dictionary(["a": arrays, "d": dictionaries])
        let xml = try PlistCodec.encode(root, format: .xml)
        let binary = try PlistCodec.encode(root, format: .binary)
        let json = StoredValueJSON.encode(dictionaries)
        let outcome = onSmallStack(256 * 1024) {
            var checks: [Bool] = []
            checks.append((try? PlistCodec.encode(root, format: .xml)) == xml)
            checks.append((try? PlistCodec.encode(root, format: .binary)) == binary)
            checks.append((try? PlistCodec.decode(xml, path: "x")) == root)
            checks.append((try? PlistCodec.decode(binary, path: "b")) == root)
            checks.append(StoredValueJSON.encode(dictionaries) == json)
            checks.append((try? StoredValueJSON.decode(json)) == dictionaries)
            // Built and released on this stack too.
            let copy = DeepValue.arrays(limit)
            checks.append(arrays == copy && arrays.hashValue == copy.hashValue)
            checks.append(arrays.description == String(repeating: "(", count: limit) + "7" + String(repeating: ")", count: limit))
            checks.append(dictionaries.description.hasSuffix("level0 = \"end\"" + String(repeating: "}", count: limit)))
            checks.append(StoredValue.canonicallySorted([arrays, dictionaries]).count == 2)
            checks.append(!root.isNested(deeperThan: limit + 1) && root.isNested(deeperThan: limit))
            return checks
        }
        #expect(outcome.allSatisfy { $0 }, "\(outcome)")
    }

    /// Codable recursion is the type's own (`encode(to:)` calls its properties'): at
    /// ``StoredValue/maximumCodableDepth`` it fits the 512 KiB stacks of Dispatch and the cooperative pool.
    @Test func codableAtItsLimitFitsA512KiBStack() throws {
        let node = NestingNode.chain(StoredValue.maximumCodableDepth)
        let encodedNode = try StoredValueEncoder().encode(node)
        let outcome = onSmallStack(512 * 1024) {
            [
                (try? StoredValueEncoder().encode(node)) == encodedNode,
                (try? StoredValueDecoder().decode(NestingNode.self, from: encodedNode)) != nil,
            ]
        }
        #expect(outcome.allSatisfy { $0 }, "\(outcome)")
    }
}

extension NestingLimitTests {
    /// Values built by hand far beyond the limit. Static, so that they are never released on the
    /// small stack (releasing a deep tree is the runtime's recursion, not StoredKit's).
    static let handBuilt = (
        arrays: DeepValue.arrays(2_000), sameArrays: DeepValue.arrays(2_000),
        otherArrays: DeepValue.arrays(2_000, innermost: .int(8)),
        dictionaries: DeepValue.dictionaries(2_000), sameDictionaries: DeepValue.dictionaries(2_000)
    )

    @Test func comparingHashingAndPrintingAHandBuiltValueBeyondTheLimitDoNotRecurse() {
        let outcome = onSmallStack(256 * 1024) {
            let values = Self.handBuilt
            return [
                values.arrays == values.sameArrays, values.arrays != values.otherArrays,
                values.dictionaries == values.sameDictionaries, values.dictionaries != values.arrays,
                values.arrays.hashValue == values.sameArrays.hashValue,
                values.dictionaries.hashValue == values.sameDictionaries.hashValue,
                values.arrays.description.hasSuffix("(…)" + String(repeating: ")", count: StoredValue.maximumDepth)),
                StoredValue.canonicallySorted([values.otherArrays, values.arrays]).count == 2,
                values.arrays.isNested(deeperThan: StoredValue.maximumDepth),
            ]
        }
        #expect(outcome.allSatisfy { $0 }, "\(outcome)")
    }
}

/// Arrays of arrays through `encode(to:)`'s unkeyed containers, `depth` levels deep.
struct DeepArrays: Encodable {
    let depth: Int

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if depth > 1 { try container.encode(DeepArrays(depth: depth - 1)) }
    }
}

/// Runs `body` on a thread with a `stackSize` stack (512 KiB unless told) and returns its result.
func onSmallStack<Result: Sendable>(
    _ stackSize: Int = 512 * 1024, _ body: @escaping @Sendable () -> Result
) -> Result {
    let box = Mutex<Result?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        let result = body()
        box.withLock { $0 = result }
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    done.wait()
    return box.withLock { $0! }  // trap-ok: the thread set it before signalling
}
