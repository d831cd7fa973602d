import Foundation
import Synchronization
import Testing

@testable import StoredKit

@Suite("PlistBackend")
struct PlistBackendTests {
    static let sample: [String: StoredValue] = [
        "flag": .bool(true),
        "count": .int(-42),
        "huge": .uint(UInt64.max),
        "volume": .double(0.25),
        "name": .string("Zoë \"quoted\" <tag> & more"),
        "blob": .data(Data([0, 1, 2, 255])),
        "when": .date(Date(timeIntervalSinceReferenceDate: 123_456_789)),
        "tabs": .array([.string("home"), .int(2), .array([])]),
        "window": .dictionary(["x": .int(10), "nested": .dictionary(["on": .bool(false)])]),
    ]

    @Test(arguments: [PlistFormat.xml, .binary])
    func roundTripsEveryKindOfValueThroughAReopenedFile(format: PlistFormat) throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let writer = PlistBackend.plist(at: url, format: format)
        _ = try writer.load()

        #expect(try writer.commit(BackendChanges(values: Self.sample.mapValues { $0 })) == nil)

        let reopened = try PlistBackend.plist(at: url).load()
        #expect(reopened.values == Self.sample)
        #expect(reopened.schemaVersion == 0)
        #expect(reopened.events.isEmpty)
        let header = try Data(contentsOf: url).prefix(8)
        #expect(header == Data((format == .xml ? "<?xml ve" : "bplist00").utf8))
    }

    @Test func readsEitherFormatWhateverTheConfiguredOne() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        _ = try PlistBackend.plist(at: url, format: .binary).commit(BackendChanges(values: ["a": .int(1)]))

        let xmlConfigured = PlistBackend.plist(at: url, format: .xml)
        #expect(try xmlConfigured.load().values == ["a": .int(1)])
        _ = try xmlConfigured.commit(BackendChanges(values: ["b": .int(2)]))

        #expect(try String(contentsOf: url, encoding: .utf8).hasPrefix("<?xml"))
        #expect(try PlistBackend.plist(at: url, format: .binary).load().values == ["a": .int(1), "b": .int(2)])
    }

    @Test func removingAKeyPersists() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let backend = PlistBackend.plist(at: url)
        _ = try backend.load()
        _ = try backend.commit(BackendChanges(values: ["a": .int(1), "b": .int(2)]))

        _ = try backend.commit(BackendChanges(values: ["a": nil]))

        #expect(try PlistBackend.plist(at: url).load().values == ["b": .int(2)])
    }

    @Test func schemaVersionIsPersistedButNeverAKey() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let backend = PlistBackend.plist(at: url)
        _ = try backend.load()

        _ = try backend.commit(BackendChanges(values: ["a": .int(1)], schemaVersion: 3))

        let reopened = try PlistBackend.plist(at: url).load()
        #expect(reopened.schemaVersion == 3)
        #expect(reopened.values == ["a": .int(1)])
        let raw = try #require(
            try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        #expect(Set(raw.keys) == ["a", "StoredKit.metadata"])
        #expect((raw["StoredKit.metadata"] as? [String: Any])?["schemaVersion"] as? Int == 3)
    }

    @Test func fileWithoutMigrationsHasOnlyTheUsersKeys() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")

        _ = try PlistBackend.plist(at: url).commit(BackendChanges(values: ["a": .string("x")]))

        let raw = try #require(
            try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        #expect(Array(raw.keys) == ["a"])
        #expect(raw["a"] as? String == "x")
    }

    @Test func theReservedKeyCannotBeWritten() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let backend = PlistBackend.plist(at: scratch.file("prefs.plist"))

        #expect(throws: StoreError.self) {
            try backend.commit(BackendChanges(values: ["StoredKit.metadata": .int(1)]))
        }
        #expect(try scratch.names().isEmpty)
    }

    @Test func createsOwnerOnlyFileAndMissingDirectoriesOnFirstWriteOnly() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("config/app/prefs.plist")
        let backend = PlistBackend.plist(at: url)

        #expect(try backend.load().values.isEmpty)
        #expect(try scratch.names().isEmpty)

        _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))

        #expect(try TemporaryDirectory.mode(of: url.path) == 0o600)
        #expect(try TemporaryDirectory.mode(of: scratch.file("config/app").path) == 0o700)
        #expect(try TemporaryDirectory.mode(of: scratch.file("config").path) == 0o700)
    }

    @Test func loadsAFileWrittenByFoundationAndFoundationReadsOurs() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let foundationValues: [String: Any] = ["launches": 3, "name": "demo", "enabled": true, "list": [1, 2]]
        try PropertyListSerialization.data(fromPropertyList: foundationValues, format: .xml, options: 0).write(to: url)
        let backend = PlistBackend.plist(at: url)

        #expect(
            try backend.load().values == [
                "launches": .int(3), "name": .string("demo"), "enabled": .bool(true), "list": .array([.int(1), .int(2)]),
            ])

        _ = try backend.commit(BackendChanges(values: ["launches": .int(4)]))
        let raw = try #require(
            try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        #expect(raw["launches"] as? Int == 4)
        #expect(raw["name"] as? String == "demo")
    }

    @Test func aCommitMergesOnTopOfAnotherInstancesCommit() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let first = PlistBackend.plist(at: url)
        let second = PlistBackend.plist(at: url)
        _ = try first.load()
        _ = try second.load()

        #expect(try first.commit(BackendChanges(values: ["a": .int(1)])) == nil)
        let fresh = try #require(try second.commit(BackendChanges(values: ["b": .int(2)])))

        #expect(fresh.values == ["a": .int(1), "b": .int(2)])
        #expect(try PlistBackend.plist(at: url).load().values == ["a": .int(1), "b": .int(2)])
        #expect(try first.commit(BackendChanges(values: ["c": .int(3)]))?.values == ["a": .int(1), "b": .int(2), "c": .int(3)])
        #expect(try first.commit(BackendChanges(values: ["d": .int(4)])) == nil)
    }

    @Test func exclusiveAccessFromTwoThreadsAndTwoInstancesLosesNoIncrement() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let backends = [PlistBackend.plist(at: url), PlistBackend.plist(at: url)]
        let failures = Mutex<[String]>([])
        let incrementsPerThread = 40

        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for _ in 0..<incrementsPerThread {
                do {
                    try backends[worker].withExclusiveAccess { snapshot in
                        guard case .int(let count)? = snapshot.values["count"] else {
                            return (BackendChanges(values: ["count": .int(1)]), ())
                        }
                        return (BackendChanges(values: ["count": .int(count + 1)]), ())
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }

        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try PlistBackend.plist(at: url).load().values["count"] == .int(Int64(2 * incrementsPerThread)))
    }

    @Test func aThrowingExclusiveBodyCommitsNothing() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let backend = PlistBackend.plist(at: url)
        _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))
        struct Abort: Error {}

        #expect(throws: Abort.self) {
            try backend.withExclusiveAccess { _ -> (BackendChanges, Void) in throw Abort() }
        }

        #expect(try PlistBackend.plist(at: url).load().values == ["a": .int(1)])
    }

    @Test func leftoverTemporaryFilesAreRemovedAtOpen() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        _ = try PlistBackend.plist(at: url).commit(BackendChanges(values: ["a": .int(1)]))
        for name in [".prefs.plist.tmp-4242-crashed", ".other.plist.tmp-1-x"] {
            #expect(FileManager.default.createFile(atPath: scratch.file(name).path, contents: Data("half".utf8)))
        }

        #expect(try PlistBackend.plist(at: url).load().values == ["a": .int(1)])

        #expect(try scratch.names() == [".other.plist.tmp-1-x", "prefs.plist", "prefs.plist.lock"])
    }

    @Test(arguments: [CorruptionPolicy.quarantine, .fail])
    func anEmptyFileReadsAsAnEmptyStore(policy: CorruptionPolicy) throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
        let backend = PlistBackend.plist(at: url, corruption: policy)

        let snapshot = try backend.load()

        #expect(snapshot.values.isEmpty)
        #expect(snapshot.events.isEmpty)
        #expect(try scratch.names() == ["prefs.plist"])
        _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))
        #expect(try PlistBackend.plist(at: url).load().values == ["a": .int(1)])
    }

    @Test func exposesPathAndFormatForTools() throws {
        let backend = PlistBackend.plist(at: URL(fileURLWithPath: "/tmp/x/app.plist"), format: .binary)

        #expect(backend.path == "/tmp/x/app.plist")
        #expect(backend.location == "/tmp/x/app.plist")
        #expect(backend.format == .binary)
        #expect(backend.corruptionPolicy == .quarantine)
    }
}
