import Foundation
import Testing

@testable import StoredKit

/// What an SQLite open checks before it trusts a file, and what it repairs only afterwards.
@Suite("SQLite: checks at open")
struct SQLiteOpenCheckTests {
    static let nextSequence = """
        (SELECT max((SELECT coalesce(max(change_seq), 0) FROM preferences),
                    (SELECT coalesce(max(change_seq), 0) FROM removed_keys)) + 1)
        """
    static let now = "((julianday('now') - 2440587.5) * 86400.0)"

    /// `SQLiteSchema.create` as of 8984a90, before the open compared the triggers' text.
    static let previousCreate = """
        CREATE TABLE IF NOT EXISTS preferences (
            key TEXT PRIMARY KEY NOT NULL,
            type TEXT NOT NULL,
            value ANY,
            updated_at REAL NOT NULL DEFAULT \(now),
            change_seq INTEGER NOT NULL DEFAULT 0
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS removed_keys (
            key TEXT PRIMARY KEY NOT NULL,
            change_seq INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        DROP INDEX IF EXISTS preferences_by_change_seq;
        DROP INDEX IF EXISTS removed_keys_by_change_seq;
        DROP TRIGGER IF EXISTS preferences_record_removal;
        CREATE TRIGGER IF NOT EXISTS preferences_record_untracked_removal AFTER DELETE ON preferences
            WHEN NOT EXISTS (SELECT 1 FROM removed_keys WHERE key = OLD.key AND change_seq > OLD.change_seq) BEGIN
            INSERT INTO removed_keys (key, change_seq) VALUES (OLD.key, max(OLD.change_seq + 1, \(nextSequence)))
                ON CONFLICT (key) DO UPDATE SET change_seq = excluded.change_seq;
        END;
        CREATE TRIGGER IF NOT EXISTS preferences_stamp_manual_insert AFTER INSERT ON preferences
            WHEN NEW.change_seq = 0 BEGIN
            UPDATE preferences SET change_seq = \(nextSequence) WHERE key = NEW.key;
        END;
        CREATE TRIGGER IF NOT EXISTS preferences_stamp_manual_update AFTER UPDATE ON preferences
            WHEN NEW.change_seq = OLD.change_seq BEGIN
            UPDATE preferences SET change_seq = \(nextSequence), updated_at = \(now) WHERE key = NEW.key;
        END;
        PRAGMA application_id = \(SQLiteSchema.applicationID);
        """

    static func shell(_ url: URL, _ sql: String) throws -> String {
        try SQLiteBackendTests.shell(url, sql).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func isQuarantine(_ event: StoreEvent) -> Bool {
        if case .quarantined = event { true } else { false }
    }

    /// Overwrites the B-tree page type of `table`'s root page, as a bit flip on disk would.
    static func damageRootPage(of table: String, in url: URL) throws {
        let root = try shell(url, "select rootpage from sqlite_schema where name = '\(table)'")
        let pageSize = try shell(url, "pragma page_size")
        let offset = (try #require(UInt64(root)) - 1) * (try #require(UInt64(pageSize)))
        let handle = try FileHandle(forUpdating: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data([0xFF]))
    }

    /// Opens the damaged file at `url` and expects it moved aside byte for byte as it was.
    static func expectQuarantinedUnwritten(_ url: URL) throws {
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        let damaged = try Data(contentsOf: url)
        let snapshot = try SQLiteBackend.sqlite(at: url, corruption: .quarantine).load()
        guard case .quarantined(_, let movedTo, _) = snapshot.events.first else {
            Issue.record("expected a quarantine, got \(snapshot)")
            return
        }
        #expect(try Data(contentsOf: URL(filePath: movedTo)) == damaged, "the open wrote to the file it then moved aside")
    }

    @Test func aFileFromThePreviousReleaseIsNotRebuilt() throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        _ = try Self.shell(url, "PRAGMA journal_mode = WAL; " + Self.previousCreate)
        _ = try Self.shell(url, "INSERT INTO preferences VALUES ('a', 'int', 1, 0, 1)")
        let before = try Self.shell(url, "PRAGMA schema_version")
        #expect(try SQLiteBackend.sqlite(at: url).load().values == ["a": .int(1)])
        #expect(try Self.shell(url, "PRAGMA schema_version") == before)
    }

    @Test func aReadOnlyFileOfTheCurrentLayoutLoads() throws {
        let directory = try TemporaryDirectory()
        try SQLiteBackendTests.makeDatabase(at: directory.database, keys: 3)
        try SQLiteBackendTests.makeReadOnly(directory.database, true)
        defer { try? SQLiteBackendTests.makeReadOnly(directory.database, false) }
        #expect(try SQLiteBackend.sqlite(at: directory.database).load().values.count == 3)
    }

    @Test func anotherVersionsTriggerThatCompilesIsLeftAlone() throws {
        // A later StoredKit may word a trigger differently under the same application ID; an
        // older one opening the file must not revert it (a schema write at every open).
        let directory = try TemporaryDirectory()
        let url = directory.database
        _ = try SQLiteBackend.sqlite(at: url).commit(BackendChanges(values: ["a": .int(1)]))
        let newer = """
            CREATE TRIGGER preferences_stamp_manual_insert AFTER INSERT ON preferences
                WHEN NEW.change_seq <= 0 BEGIN
                UPDATE preferences SET change_seq = 1 WHERE key = NEW.key;
            END
            """
        _ = try Self.shell(url, "DROP TRIGGER preferences_stamp_manual_insert; \(newer);")
        #expect(try SQLiteBackend.sqlite(at: url).load().values == ["a": .int(1)])
        #expect(try Self.shell(url, "select sql from sqlite_schema where name = 'preferences_stamp_manual_insert'") == newer)
    }

    @Test func aFileWithAChangedTriggerAndADamagedPageIsQuarantinedUnwritten() throws {
        // Two flips, as stored-torture makes them: one in a trigger's text (SQL that no longer
        // compiles), one in a data page. The trigger must not be rebuilt into the file first.
        let directory = try TemporaryDirectory()
        let url = directory.database
        _ = try SQLiteBackend.sqlite(at: url).commit(BackendChanges(values: ["a": .int(1)]))
        try SQLiteDamagedSchemaTests.damageSchema(url, objectType: "trigger", replacing: "NEW.key", with: "NEW.jey")
        try Self.damageRootPage(of: "preferences", in: url)
        try Self.expectQuarantinedUnwritten(url)
    }

    @Test func aTriggerWhoseTextNoLongerParsesIsQuarantinedUnwritten() throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        _ = try SQLiteBackend.sqlite(at: url).commit(BackendChanges(values: ["a": .int(1)]))
        // A flip in a trigger's name inside its text: the schema no longer loads.
        try SQLiteDamagedSchemaTests.damageSchema(
            url, objectType: "trigger", replacing: "TRIGGER preferences_stamp_manual_insert",
            with: "TRIGGER preferences_stamp_manual_insers")
        try Self.expectQuarantinedUnwritten(url)
    }

    @Test func aDamagedTombstoneTableIsQuarantinedAtOpenNotAtTheFirstWrite() throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        do {
            let backend = SQLiteBackend.sqlite(at: url)
            _ = try backend.commit(BackendChanges(values: ["a": .int(1), "b": .int(2)]))
            _ = try backend.commit(BackendChanges(values: ["b": nil]))
        }  // the last connection closes: the log is checkpointed into the file and removed
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        try Self.damageRootPage(of: "removed_keys", in: url)

        let backend = SQLiteBackend.sqlite(at: url, corruption: .quarantine)
        let snapshot = try backend.load()
        #expect(snapshot.events.contains(where: Self.isQuarantine), "the damage was not found at open: \(snapshot)")
        #expect(throws: Never.self) { _ = try backend.commit(BackendChanges(values: ["c": .int(3)])) }
    }

    @Test func aDamagedSequenceFieldIsQuarantinedAtOpenNotAtTheFirstWrite() throws {
        // The open's scan must read every row to its last column: damage there found only by a
        // later write would be outside the corruption policy, and every write would fail.
        let directory = try TemporaryDirectory()
        let url = directory.database
        _ = try SQLiteBackend.sqlite(at: url).commit(BackendChanges(values: ["a": .int(5)]))
        // Row 'a': header (6 bytes: key text(1), type text(3), int8, real, the constant 1), then 'a', 'int', 5.
        var bytes = try Data(contentsOf: url)
        let row = Data([0x06, 0x0F, 0x13, 0x01, 0x07, 0x09, 0x61, 0x69, 0x6E, 0x74, 0x05])
        let found = try #require(bytes.range(of: row))
        bytes[found.lowerBound + 5] = 0x7F  // change_seq now claims a 57-byte blob past the row's end
        try bytes.write(to: url)

        let backend = SQLiteBackend.sqlite(at: url, corruption: .quarantine)
        let snapshot = try backend.load()
        #expect(snapshot.events.contains(where: Self.isQuarantine), "the damage was not found at open: \(snapshot)")
        #expect(throws: Never.self) { _ = try backend.commit(BackendChanges(values: ["c": .int(3)])) }
    }

    /// A file of the current layout holding `a` = 1, with one trigger dropped (so it needs repair).
    static func fileMissingATrigger(_ url: URL) throws {
        _ = try SQLiteBackend.sqlite(at: url).commit(BackendChanges(values: ["a": .int(1)]))
        _ = try shell(url, "DROP TRIGGER preferences_stamp_manual_insert")
    }

    @Test func aReadOnlyFileMissingATriggerLoads() throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        try Self.fileMissingATrigger(url)
        try SQLiteBackendTests.makeReadOnly(url, true)
        defer { try? SQLiteBackendTests.makeReadOnly(url, false) }
        // The current layout loads read-only (aReadOnlyFileOfTheCurrentLayoutLoads); triggers only matter to writes.
        #expect(try SQLiteBackend.sqlite(at: url).load().values == ["a": .int(1)])
    }

    @Test func aFileOfNewerWriteFormatMissingATriggerLoads() throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        try Self.fileMissingATrigger(url)
        var bytes = try Data(contentsOf: url)
        bytes[18] = 3
        try bytes.write(to: url)
        #expect(try SQLiteBackend.sqlite(at: url).load().values == ["a": .int(1)])
    }

    @Test func aRepairThatFailsDoesNotReportRowsTwice() throws {
        // The repair runs after the read; here another connection holds the write lock past the busy timeout.
        let directory = try TemporaryDirectory()
        let url = directory.database
        try Self.fileMissingATrigger(url)
        _ = try Self.shell(url, "INSERT INTO preferences (key, type, value, change_seq) VALUES ('bad', 'bogus', 1, 10)")
        let blocker = try SQLiteConnection(path: url.path)
        _ = try blocker.scalar("PRAGMA journal_mode = WAL")
        try blocker.run("BEGIN IMMEDIATE")
        let backend = SQLiteBackend.sqlite(at: url)
        #expect(throws: StoreError.self) { _ = try backend.load() }
        try blocker.run("ROLLBACK")
        let snapshot = try backend.load()
        let failures = snapshot.events.compactMap { if case .decodingFailed(let key, _, _) = $0 { key } else { nil } }
        #expect(failures == ["bad"])
    }

    @Test func severalConnectionsRepairAnOutdatedFileAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.database
        _ = try SQLiteBackend.sqlite(at: url).commit(BackendChanges(values: ["a": .int(1)]))
        _ = try Self.shell(url, "CREATE INDEX preferences_by_change_seq ON preferences (change_seq)")
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (try? SQLiteBackend.sqlite(at: url).load().values == ["a": .int(1)]) ?? false
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
        #expect(try Self.shell(url, "select count(*) from sqlite_schema where name = 'preferences_by_change_seq'") == "0")
    }
}
