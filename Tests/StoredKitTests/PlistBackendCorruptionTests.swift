import Foundation
import Testing

@testable import StoredKit

@Suite("PlistBackend corruption")
struct PlistBackendCorruptionTests {
    /// Files that are not a usable store, by what went wrong.
    static let corruptFiles: [String: Data] = {
        let valid =
            (try? PropertyListSerialization.data(fromPropertyList: ["a": 1, "b": "text"], format: .xml, options: 0)) ?? Data()
        let array = (try? PropertyListSerialization.data(fromPropertyList: [1, 2], format: .xml, options: 0)) ?? Data()
        var garbage = Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) })
        garbage[0] = 0x7f
        return [
            "truncated": valid.prefix(valid.count / 2),
            "garbage": garbage,
            "wrong root": array,
            "broken binary": Data("bplist00".utf8) + Data(repeating: 0xee, count: 40),
            "bad metadata": Data(
                #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>StoredKit.metadata</key><string>x</string></dict></plist>"#
                    .utf8),
        ]
    }()

    static let cases = corruptFiles.keys.sorted()

    @Test(arguments: cases)
    func quarantineMovesTheFileAsideAndOpensEmpty(kind: String) throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let bytes = try #require(Self.corruptFiles[kind])
        try bytes.write(to: url)
        let backend = PlistBackend.plist(at: url)

        let snapshot = try backend.load()

        #expect(snapshot.values.isEmpty)
        try #require(snapshot.events.count == 1)
        guard case .quarantined(let path, let movedTo, let reason) = snapshot.events[0] else {
            Issue.record("unexpected \(snapshot.events)")
            return
        }
        #expect(path == url.path)
        #expect(!reason.isEmpty)
        #expect(movedTo.wholeMatch(of: /.*\/prefs\.plist\.corrupt-\d{8}T\d{6}Z(-\d+)?/) != nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == bytes)
        #expect(!FileManager.default.fileExists(atPath: url.path))

        _ = try backend.commit(BackendChanges(values: ["fresh": .bool(true)]))
        #expect(try PlistBackend.plist(at: url).load().values == ["fresh": .bool(true)])
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == bytes)
    }

    @Test(arguments: cases)
    func failPolicyThrowsAndLeavesTheFile(kind: String) throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let bytes = try #require(Self.corruptFiles[kind])
        try bytes.write(to: url)
        let backend = PlistBackend.plist(at: url, corruption: .fail)

        let error = try #require(throws: StoreError.self) { try backend.load() }

        guard case .corruptFile(let path, _, let quarantinedAt) = error else { Issue.record("unexpected \(error)"); return }
        #expect(path == url.path)
        #expect(quarantinedAt == nil)
        #expect(try Data(contentsOf: url) == bytes)
        #expect(try scratch.names() == ["prefs.plist"])
        #expect(throws: StoreError.self) { try backend.commit(BackendChanges(values: ["a": .int(1)])) }
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func repeatedQuarantinesKeepEveryCopy() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        var movedTo: [String] = []

        for round in 0..<3 {
            try Data("garbage \(round)".utf8).write(to: url)
            for event in try PlistBackend.plist(at: url).load().events {
                if case .quarantined(_, let destination, _) = event { movedTo.append(destination) }
            }
        }

        #expect(Set(movedTo).count == 3)
        let contents = try movedTo.map { try String(contentsOfFile: $0, encoding: .utf8) }
        #expect(contents == ["garbage 0", "garbage 1", "garbage 2"])
    }

    @Test func corruptionWrittenByAnotherProcessIsQuarantinedDuringCommit() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let backend = PlistBackend.plist(at: url)
        _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))
        try Data("not a plist".utf8).write(to: url)

        let fresh = try #require(try backend.commit(BackendChanges(values: ["b": .int(2)])))

        #expect(fresh.values == ["b": .int(2)])
        guard case .quarantined(_, let movedTo, _)? = fresh.events.first else {
            Issue.record("unexpected \(fresh.events)")
            return
        }
        #expect(try String(contentsOfFile: movedTo, encoding: .utf8) == "not a plist")
        #expect(try PlistBackend.plist(at: url).load().values == ["b": .int(2)])
    }
}
