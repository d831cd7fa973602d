import Foundation
import StoredKitTestSupport
import Testing

/// Offline replicas for the CLI tests, made as an app makes them: `stored-test-helper
/// replica-set` (Tests/StoredTestHelper/ReplicaCommands.swift) opens the file with
/// `.postgres(url:namespace:replica:)`, writes and flushes; with a server nobody listens on, every
/// write waits in the outbox. `sqlite3` reads and edits the file as a person would.
///
/// ```swift
/// let id = try ReplicaFixture.offlineWrites(["volume=0.9", "--remove", "theme"], file: cli.path("prefs.replica"))
/// try ReplicaFixture.sqlite(cli.path("prefs.replica"), "select count(*) from replica_stamps")  //=> "2"
/// ```
enum ReplicaFixture {
    /// A server URL nobody listens on: the replica works offline.
    static var down: String { "postgresql://app@127.0.0.1:\(closedLocalPort())/prefs" }

    /// Runs `replica-set` on `file` offline (or on `url`) with `writes` (`KEY=VALUE`, `--remove KEY`,
    /// `--sync S`); returns the replica's id, which it printed.
    @discardableResult
    static func offlineWrites(_ writes: [String], file: String, url: String? = nil, namespace: String = "default") throws
        -> String
    {
        let (status, output) = try ExternalCommand.run(
            try BuiltExecutable.url(named: "stored-test-helper").path,
            ["replica-set", url ?? down, namespace, file] + writes)
        guard status == 0, let line = output.split(separator: "\n").first(where: { $0.hasPrefix("replica ") }) else {
            throw FixtureFailed(description: "replica-set ended with \(status): \(output)")
        }
        return String(line.dropFirst("replica ".count))
    }

    /// Runs SQL on the file with `sqlite3`; its output, trimmed.
    @discardableResult
    static func sqlite(_ file: String, _ sql: String) throws -> String {
        let (status, output) = try ExternalCommand.run("/usr/bin/sqlite3", [file, sql])
        guard status == 0 else { throw FixtureFailed(description: "sqlite3 failed (exit \(status)): \(sql)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What `sqlite3` shows of the replica's own tables: changed by nothing that only reads.
    static func replicaTables(_ file: String) throws -> String {
        try sqlite(file, "select * from replica; select * from replica_stamps order by key; select * from replica_sync")
    }

    /// Makes `replica_stamps` a table without STRICT, as a hand-made copy could be, holding the
    /// same rows, and runs `edit` on it: garbage then stays garbage.
    static func loosenStamps(_ file: String, _ edit: String) throws {
        try sqlite(
            file,
            """
            BEGIN;
            CREATE TABLE loose (key TEXT PRIMARY KEY NOT NULL, stamp_ms INTEGER NOT NULL, stamp_counter INTEGER NOT NULL,
                replica_id TEXT NOT NULL, queued_at REAL, migration INTEGER) WITHOUT ROWID;
            INSERT INTO loose SELECT * FROM replica_stamps;
            DROP TABLE replica_stamps;
            ALTER TABLE loose RENAME TO replica_stamps;
            \(edit);
            COMMIT;
            """)
    }

    /// The `--json` object `stored info` printed.
    static func json(_ outcome: Outcome) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: outcome.output) as? [String: Any], "\(outcome)")
    }
}

/// A command ``ReplicaFixture`` ran failed.
struct FixtureFailed: Error, CustomStringConvertible {
    let description: String
}
