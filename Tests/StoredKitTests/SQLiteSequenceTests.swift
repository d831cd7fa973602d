import Foundation
import Testing

@testable import StoredKit

/// The change sequence is kept without a `change_seq` index or a per-write query.
@Suite("SQLite change sequence")
struct SQLiteSequenceTests {
    static let firstLayoutExtras = """
        CREATE INDEX preferences_by_change_seq ON preferences (change_seq);
        CREATE INDEX removed_keys_by_change_seq ON removed_keys (change_seq);
        CREATE TRIGGER preferences_record_removal AFTER DELETE ON preferences BEGIN
            INSERT INTO removed_keys (key, change_seq) VALUES (OLD.key, max(OLD.change_seq + 1,
                (SELECT max((SELECT coalesce(max(change_seq), 0) FROM preferences),
                            (SELECT coalesce(max(change_seq), 0) FROM removed_keys)) + 1)))
                ON CONFLICT (key) DO UPDATE SET change_seq = excluded.change_seq;
        END;
        """

    static func shell(_ database: URL, _ sql: String) throws -> String {
        try SQLiteBackendTests.shell(database, sql)
    }

    static func sequence(of key: String, in table: String, _ database: URL) throws -> Int {
        let text = try shell(database, "select change_seq from \(table) where key = '\(key)'")
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func aWriteAfterAnotherConnectionsDeleteIsSeenByAThirdOne() throws {
        let directory = try TemporaryDirectory()
        let writer = SQLiteBackend.sqlite(at: directory.database)
        let deleter = SQLiteBackend.sqlite(at: directory.database)
        let reader = SQLiteBackend.sqlite(at: directory.database)
        _ = try writer.commit(BackendChanges(values: ["a": .int(1), "b": .int(2)]))
        _ = try deleter.load()
        _ = try deleter.commit(BackendChanges(values: ["b": nil]))
        #expect(try reader.load().values == ["a": .int(1)])

        // The writer's last sequence is stale; it must stamp above the deleter's tombstone.
        _ = try writer.commit(BackendChanges(values: ["c": .int(3)]))
        #expect(try reader.load().values == ["a": .int(1), "c": .int(3)])
        let tombstone = try Self.sequence(of: "b", in: "removed_keys", directory.database)
        #expect(try Self.sequence(of: "c", in: "preferences", directory.database) > tombstone)
    }

    @Test func aFirstLayoutFileLosesItsIndexesAndKeepsItsData() throws {
        let directory = try TemporaryDirectory()
        _ = try SQLiteBackend.sqlite(at: directory.database).commit(BackendChanges(values: ["a": .int(1), "b": .int(2)]))
        _ = try Self.shell(directory.database, "DROP TRIGGER preferences_record_untracked_removal; " + Self.firstLayoutExtras)

        let backend = SQLiteBackend.sqlite(at: directory.database)
        #expect(try backend.load().values == ["a": .int(1), "b": .int(2)])
        let objects = try Self.shell(directory.database, "select name from sqlite_schema where sql is not null order by name")
        #expect(
            objects.split(separator: "\n") == [
                "preferences", "preferences_record_untracked_removal", "preferences_stamp_manual_insert",
                "preferences_stamp_manual_update", "removed_keys",
            ])
    }

    @Test func anOlderStoredKitsTriggerRaisingATombstoneIsAccountedFor() throws {
        let directory = try TemporaryDirectory()
        let backend = SQLiteBackend.sqlite(at: directory.database)
        let reader = SQLiteBackend.sqlite(at: directory.database)
        _ = try backend.commit(BackendChanges(values: ["a": .int(1), "b": .int(2)]))
        // An older StoredKit opening the file re-creates the first layout next to ours.
        _ = try Self.shell(directory.database, Self.firstLayoutExtras)

        _ = try backend.commit(BackendChanges(values: ["b": nil]))
        #expect(try reader.load().values == ["a": .int(1)])
        _ = try backend.commit(BackendChanges(values: ["c": .int(3)]))
        #expect(try reader.load().values == ["a": .int(1), "c": .int(3)])
        let tombstone = try Self.sequence(of: "b", in: "removed_keys", directory.database)
        #expect(try Self.sequence(of: "c", in: "preferences", directory.database) > tombstone)
    }

    @Test func handDeletesStillLeaveATombstoneAboveTheRow() throws {
        let directory = try TemporaryDirectory()
        let backend = SQLiteBackend.sqlite(at: directory.database)
        _ = try backend.commit(BackendChanges(values: ["a": .int(1), "b": .int(2)]))
        #expect(try backend.load().values.count == 2)
        _ = try Self.shell(directory.database, "delete from preferences where key = 'a'")
        #expect(try backend.load().values == ["b": .int(2)])
        let row = try Self.sequence(of: "b", in: "preferences", directory.database)
        #expect(try Self.sequence(of: "a", in: "removed_keys", directory.database) > row)
    }

    @Test func aFileRestoredToAnOlderCopyIsReadAgainInFull() throws {
        let directory = try TemporaryDirectory()
        let backend = SQLiteBackend.sqlite(at: directory.database)
        _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))
        let backup = directory.file("backup.sqlite")
        _ = try Self.shell(directory.database, ".backup '\(backup.path)'")
        _ = try backend.commit(BackendChanges(values: ["b": .int(2), "c": .int(3)]))
        #expect(try backend.load().values.count == 3)

        _ = try Self.shell(directory.database, ".restore '\(backup.path)'")
        #expect(try backend.load().values == ["a": .int(1)])
    }

    @Test func aStoreThatOnlyReadAtOpenStampsItsFirstWriteAboveEverySequence() throws {
        let directory = try TemporaryDirectory()
        let other = SQLiteBackend.sqlite(at: directory.database)
        _ = try other.commit(BackendChanges(values: ["a": .int(1), "b": .int(2)]))
        _ = try other.load()
        _ = try other.commit(BackendChanges(values: ["b": nil]))

        let backend = SQLiteBackend.sqlite(at: directory.database)
        #expect(try backend.load().values == ["a": .int(1)])
        _ = try backend.commit(BackendChanges(values: ["c": .int(3)]))
        let tombstone = try Self.sequence(of: "b", in: "removed_keys", directory.database)
        let stamped = try Self.sequence(of: "c", in: "preferences", directory.database)
        #expect(stamped > tombstone)
        #expect(stamped > (try Self.sequence(of: "a", in: "preferences", directory.database)))
    }

    @Test func changesAfterAnOpenAreReadIncrementally() throws {
        let directory = try TemporaryDirectory()
        let writer = SQLiteBackend.sqlite(at: directory.database)
        _ = try writer.commit(BackendChanges(values: ["a": .int(1), "b": .int(2)]))
        let reader = SQLiteBackend.sqlite(at: directory.database)
        #expect(try reader.load().values == ["a": .int(1), "b": .int(2)])

        _ = try writer.commit(BackendChanges(values: ["c": .int(3)]))
        #expect(try reader.load().values == ["a": .int(1), "b": .int(2), "c": .int(3)])
        // A removal is only seen through its tombstone, a hand DELETE through the trigger's.
        _ = try writer.commit(BackendChanges(values: ["a": nil, "b": .int(20)]))
        #expect(try reader.load().values == ["b": .int(20), "c": .int(3)])
        _ = try Self.shell(directory.database, "delete from preferences where key = 'c'")
        #expect(try reader.load().values == ["b": .int(20)])
    }

    @Test func anUndecodableRowIsReportedOnceNotAgainAtTheNextExternalChange() throws {
        let directory = try TemporaryDirectory()
        let writer = SQLiteBackend.sqlite(at: directory.database)
        _ = try writer.commit(BackendChanges(values: ["a": .int(1)]))
        _ = try Self.shell(directory.database, "insert into preferences (key, type, value) values ('bad', 'int', 'x')")

        func reportsBad(_ snapshot: BackendSnapshot) -> Bool {
            snapshot.events.contains { if case .decodingFailed(key: "bad", _, _) = $0 { true } else { false } }
        }
        let reader = SQLiteBackend.sqlite(at: directory.database)
        #expect(reportsBad(try reader.load()))
        // Another connection changes an unrelated key; the bad row did not change.
        _ = try writer.commit(BackendChanges(values: ["c": .int(3)]))
        let next = try reader.load()
        #expect(next.values == ["a": .int(1), "c": .int(3)])
        #expect(!reportsBad(next))
    }

    @Test func aReaderThatWritesThroughExclusiveAccessStampsAboveATombstone() throws {
        let directory = try TemporaryDirectory()
        let other = SQLiteBackend.sqlite(at: directory.database)
        _ = try other.commit(BackendChanges(values: ["a": .int(1), "b": .int(2)]))
        let backend = SQLiteBackend.sqlite(at: directory.database)
        #expect(try backend.load().values.count == 2)
        _ = try other.commit(BackendChanges(values: ["b": nil]))
        try backend.withExclusiveAccess { _ in (BackendChanges(values: ["c": .int(3)]), ()) }
        let tombstone = try Self.sequence(of: "b", in: "removed_keys", directory.database)
        let stamped = try Self.sequence(of: "c", in: "preferences", directory.database)
        #expect(stamped > tombstone)
        // The other connection, whose sequence is current, sees that write incrementally.
        _ = try other.commit(BackendChanges(values: ["d": nil]))
        #expect(try other.load().values == ["a": .int(1), "c": .int(3)])
    }
}
