import Foundation
import StoredKitTestSupport
import Synchronization
import Testing

@testable import StoredKit

@Suite("SQLiteBackend")
struct SQLiteBackendTests {
    final class Counter: Sendable {
        let value = Mutex(0)
        func increment() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    /// Runs a program and returns its standard output.
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        try ExternalCommand.run(executable, arguments).output
    }

    static func shell(_ database: URL, _ sql: String) throws -> String {
        try run("/usr/bin/sqlite3", [database.path, sql])
    }

    static func integer(_ value: StoredValue?) -> Int64? {
        if case .int(let number) = value { number } else { nil }
    }

    static func makeDatabase(at url: URL, keys: Int) throws {
        let backend = SQLiteBackend.sqlite(at: url)
        var values: [String: StoredValue?] = [:]
        for index in 0..<keys { values["key\(index)"] = .string(String(repeating: "x", count: 200) + "\(index)") }
        _ = try backend.commit(BackendChanges(values: values, durability: .immediate))
    }

    @Test func everyKindRoundTripsThroughAReopenedFile() throws {
        let directory = try TemporaryDirectory()
        guard case .dictionary(let nested) = StoredValueJSONTests.everyKind else { return }
        var values: [String: StoredValue] = nested
        values["nested"] = StoredValueJSONTests.everyKind
        for (index, date) in StoredValueJSONTests.dates.enumerated() { values["date\(index)"] = .date(date) }
        values["positiveInfinity"] = .double(.infinity)
        values["emptyString"] = .string("")
        values["key with \u{0} NUL and ü"] = .string("\u{0}")
        let writer = SQLiteBackend.sqlite(at: directory.database)
        _ = try writer.load()
        #expect(try writer.commit(BackendChanges(values: values, schemaVersion: 4, durability: .immediate)) == nil)

        let loaded = try SQLiteBackend.sqlite(at: directory.database).load()
        #expect(loaded.values == values)
        #expect(loaded.schemaVersion == 4)
        #expect(loaded.events.isEmpty)
        if case .double(let zero) = loaded.values["negativeZero"] { #expect(zero.sign == .minus) }
    }

    @Test func tableIsReadableWithTheSQLiteShell() throws {
        let directory = try TemporaryDirectory()
        let backend = SQLiteBackend.sqlite(at: directory.database)
        let values: [String: StoredValue?] = [
            "count": .int(3), "flag": .bool(true), "name": .string("Zoë"), "ratio": .double(0.5),
            "layout": .dictionary(["tabs": .array([.string("home"), .string("search")])]),
            "opened": .date(Date(timeIntervalSince1970: 1_700_000_000.25)), "big": .uint(UInt64.max),
        ]
        _ = try backend.commit(BackendChanges(values: values, schemaVersion: 3))

        let rows = try Self.shell(directory.database, "select key, type, value, typeof(value) from preferences order by key")
        #expect(
            rows.split(separator: "\n") == [
                "big|uint|18446744073709551615|text", "count|int|3|integer", "flag|bool|1|integer",
                #"layout|dictionary|{"tabs":["home","search"]}|text"#, "name|string|Zoë|text",
                "opened|date|2023-11-14T22:13:20.25Z|text", "ratio|double|0.5|real",
            ])
        let queries = """
            select json_extract(value, '$.tabs[1]') from preferences where key = 'layout';
            select datetime(value) from preferences where key = 'opened';
            pragma journal_mode; pragma user_version; pragma application_id;
            """
        #expect(try Self.shell(directory.database, queries) == "search\n2023-11-14 22:13:20\nwal\n3\n1400130353\n")
    }

    @Test func commitReturnsAFreshSnapshotAfterAnotherConnectionWrote() throws {
        let directory = try TemporaryDirectory()
        let first = SQLiteBackend.sqlite(at: directory.database)
        let second = SQLiteBackend.sqlite(at: directory.database)
        _ = try first.commit(BackendChanges(values: ["gone": .int(0)]))
        #expect(try second.load().values == ["gone": .int(0)])
        _ = try first.load()

        #expect(try first.commit(BackendChanges(values: ["a": .int(1), "gone": nil])) == nil)
        let merged = try #require(try second.commit(BackendChanges(values: ["b": .int(2)])))
        #expect(merged.values == ["a": .int(1), "b": .int(2)])
        #expect(try second.commit(BackendChanges(values: ["c": .int(3)])) == nil)
        #expect(try first.load().values == ["a": .int(1), "b": .int(2), "c": .int(3)])
    }

    @Test func removingTheNewestKeyIsSeenByAnIncrementalReload() throws {
        let directory = try TemporaryDirectory()
        let writer = SQLiteBackend.sqlite(at: directory.database)
        let reader = SQLiteBackend.sqlite(at: directory.database)
        _ = try writer.commit(BackendChanges(values: ["old": .int(1)]))
        _ = try writer.commit(BackendChanges(values: ["newest": .int(2)]))
        #expect(try reader.load().values == ["old": .int(1), "newest": .int(2)])
        _ = try writer.commit(BackendChanges(values: ["newest": nil]))
        #expect(try reader.load().values == ["old": .int(1)])
        _ = try writer.commit(BackendChanges(values: ["old": nil]))
        _ = try writer.commit(BackendChanges(values: ["newest": .int(3)]))
        #expect(try reader.load().values == ["newest": .int(3)])
    }

    @Test func handEditsInTheShellAreSeenByAnIncrementalReload() throws {
        let directory = try TemporaryDirectory()
        let backend = SQLiteBackend.sqlite(at: directory.database)
        _ = try backend.commit(BackendChanges(values: ["a": .int(1), "b": .int(2)]))
        #expect(try backend.load().values == ["a": .int(1), "b": .int(2)])
        _ = try Self.shell(
            directory.database,
            """
            update preferences set value = 42 where key = 'a'; delete from preferences where key = 'b';
            insert into preferences (key, type, value) values ('c', 'string', 'hi'), ('bad', 'int', 'not a number');
            """)
        let snapshot = try backend.load()
        #expect(snapshot.values == ["a": .int(42), "c": .string("hi")])
        let reported = snapshot.events.contains { event in
            if case .decodingFailed(let key, _, _) = event { key == "bad" } else { false }
        }
        #expect(reported)
    }

    @Test func onlyTheExactTypeNamesRead() throws {
        // The type is told from its bytes; a near miss (a trailing NUL, another case, a longer
        // name) is a row that does not decode, reported and left alone.
        let directory = try TemporaryDirectory()
        _ = try SQLiteBackend.sqlite(at: directory.database).commit(BackendChanges(values: ["ok": .int(1)]))
        _ = try Self.shell(
            directory.database,
            """
            insert into preferences (key, type, value) values ('nul', 'int' || char(0), 5), ('upper', 'INT', 6),
                ('longer', 'integer', 7), ('dictionaryx', 'dictionaryx', '{}'), ('dict', 'dictionary', '{"a": 1}');
            """)
        let snapshot = try SQLiteBackend.sqlite(at: directory.database).load()
        #expect(snapshot.values == ["ok": .int(1), "dict": .dictionary(["a": .int(1)])])
        let failed = Set(snapshot.events.compactMap { if case .decodingFailed(let key, _, _) = $0 { key } else { nil } })
        #expect(failed == ["nul", "upper", "longer", "dictionaryx"])
    }

    @Test func watchingSignalsWhenAnotherConnectionCommits() async throws {
        let directory = try TemporaryDirectory()
        let writer = SQLiteBackend.sqlite(at: directory.database)
        let watched = SQLiteBackend.sqlite(at: directory.database)
        _ = try watched.load()
        let signals = Counter()
        try watched.startWatching { signals.increment() }
        defer { watched.stopWatching() }

        _ = try writer.commit(BackendChanges(values: ["a": .int(1)]))
        for _ in 0..<200 where signals.count == 0 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(signals.count >= 1)
        #expect(try watched.load().values == ["a": .int(1)])
    }

    @Test func exclusiveAccessFromTwoThreadsLosesNoIncrement() throws {
        let directory = try TemporaryDirectory()
        let backends = [SQLiteBackend.sqlite(at: directory.database), SQLiteBackend.sqlite(at: directory.database)]
        let failures = Mutex<[String]>([])
        let increments = 100
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for _ in 0..<increments {
                do {
                    try backends[thread].withExclusiveAccess { snapshot in
                        let next = (Self.integer(snapshot.values["count"]) ?? 0) + 1
                        return (BackendChanges(values: ["count": .int(next)]), ())
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try SQLiteBackend.sqlite(at: directory.database).load().values["count"] == .int(Int64(2 * increments)))
    }

    struct Refusal: Error {}

    @Test func failuresRollBackTheWholeBatch() throws {
        let directory = try TemporaryDirectory()
        let backend = SQLiteBackend.sqlite(at: directory.database)
        _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))
        #expect(throws: Refusal.self) {
            try backend.withExclusiveAccess { _ -> (BackendChanges, Void) in throw Refusal() }
        }
        // Values are written before the out-of-range schema version fails the batch.
        #expect(throws: StoreError.self) {
            try backend.commit(BackendChanges(values: ["a": .int(2), "b": .int(3)], schemaVersion: Int(Int32.max) + 1))
        }
        #expect(try backend.load().values == ["a": .int(1)])
        #expect(try SQLiteBackend.sqlite(at: directory.database).load().values == ["a": .int(1)])
    }

    enum Damage: CaseIterable { case notADatabase, truncated }

    static func damage(_ damage: Damage, at url: URL) throws -> Data {
        switch damage {
        case .notADatabase:
            try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }).write(to: url)
        case .truncated:
            try makeDatabase(at: url, keys: 2000)
            let bytes = try Data(contentsOf: url)
            try bytes.prefix(bytes.count / 2).write(to: url)
        }
        return try Data(contentsOf: url)
    }

    @Test(arguments: Damage.allCases) func damagedFileIsQuarantined(_ damage: Damage) throws {
        let directory = try TemporaryDirectory()
        let original = try Self.damage(damage, at: directory.database)
        let backend = SQLiteBackend.sqlite(at: directory.database, corruption: .quarantine)
        #expect(try backend.quickCheck() != [])

        let snapshot = try backend.load()
        #expect(snapshot.values.isEmpty)
        guard case .quarantined(let path, let movedTo, _) = try #require(snapshot.events.first) else {
            Issue.record("expected a quarantine event, got \(snapshot.events)")
            return
        }
        #expect(path == directory.database.path)
        #expect(movedTo.hasPrefix(directory.database.path + ".corrupt-"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == original)
        #expect(try backend.commit(BackendChanges(values: ["fresh": .bool(true)])) == nil)
        #expect(try backend.quickCheck() == [])
        #expect(try backend.load().events.isEmpty)
    }

    @Test(arguments: Damage.allCases) func damagedFileFailsWhenAskedTo(_ damage: Damage) throws {
        let directory = try TemporaryDirectory()
        let original = try Self.damage(damage, at: directory.database)
        let backend = SQLiteBackend.sqlite(at: directory.database, corruption: .fail)
        do {
            _ = try backend.load()
            Issue.record("a damaged file loaded")
        } catch StoreError.corruptFile(let path, _, let quarantinedAt) {
            #expect(path == directory.database.path)
            #expect(quarantinedAt == nil)
        }
        #expect(try Data(contentsOf: directory.database) == original)
    }

    /// Root ignores permission bits, so it makes the file immutable instead.
    static func makeReadOnly(_ url: URL, _ readOnly: Bool) throws {
        if geteuid() == 0 {
            _ = try run("/usr/bin/chattr", [readOnly ? "+i" : "-i", url.path])
        } else {
            try FileManager.default.setAttributes([.posixPermissions: readOnly ? 0o555 : 0o755], ofItemAtPath: url.path)
        }
    }

    @Test func readOnlyFileGivesATypedError() throws {
        let directory = try TemporaryDirectory()
        try Self.makeDatabase(at: directory.database, keys: 1)
        try Self.makeReadOnly(directory.database, true)
        defer { try? Self.makeReadOnly(directory.database, false) }
        let backend = SQLiteBackend.sqlite(at: directory.database)
        do {
            _ = try backend.load()
            _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))
            Issue.record("wrote to a read-only file")
        } catch StoreError.sqlite(let path, _, let message) {
            #expect(path == directory.database.path)
            #expect(message.contains("readonly"))
        }
    }

    @Test func aNewerWriteFormatReadsAndRefusesWritesWithTheReason() throws {
        // Byte 18 of the header is the format needed to write the file; SQLite reads one above 2
        // but will not write it. The error must say so, not blame the permissions.
        let directory = try TemporaryDirectory()
        _ = try SQLiteBackend.sqlite(at: directory.database).commit(BackendChanges(values: ["a": .int(1)]))
        var bytes = try Data(contentsOf: directory.database)
        bytes[18] = 3
        try bytes.write(to: directory.database)

        let backend = SQLiteBackend.sqlite(at: directory.database)
        #expect(try backend.load().values == ["a": .int(1)])
        #expect {
            _ = try backend.commit(BackendChanges(values: ["b": .int(2)]))
        } throws: { error in
            guard case StoreError.sqlite(let path, _, let message) = error else { return false }
            return path == directory.database.path && message.contains("write format 3") && !message.contains("permissions")
        }
        #expect(try Data(contentsOf: directory.database) == bytes)
    }

    @Test func readOnlyDirectoryGivesATypedError() throws {
        let directory = try TemporaryDirectory()
        try Self.makeReadOnly(directory.url, true)
        defer { try? Self.makeReadOnly(directory.url, false) }
        let backend = SQLiteBackend.sqlite(at: directory.database)
        do {
            _ = try backend.load()
            Issue.record("created a database in a read-only directory")
        } catch StoreError.io(let path, _, let code) {
            #expect(path == directory.database.path)
            #expect(code == EACCES || code == EPERM, "\(StoreError.io(path: path, operation: "", errno: code))")
        }
    }

    @Test func nothingIsCreatedBeforeFirstUse() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("nested/deeper/prefs.sqlite")
        let backend = SQLiteBackend.sqlite(at: url)
        #expect(backend.location == url.path)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try backend.load().values.isEmpty)
        #expect(FileManager.default.fileExists(atPath: url.path))
    }
}
