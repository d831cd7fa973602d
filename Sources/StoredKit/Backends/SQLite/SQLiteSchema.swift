/// The layout of a StoredKit SQLite file, and the SQL that reads and writes it.
///
/// - `PRAGMA application_id` is `0x53744B31`, the ASCII bytes `StK1` ("StoredKit, layout 1"),
///   so `file(1)` and tools can tell our files apart; a later layout would use `StK2`.
/// - `PRAGMA user_version` holds the migration schema version (``BackendSnapshot/schemaVersion``).
/// - `preferences` holds one row per key (see ``SQLiteValueColumns`` for `type` and `value`);
///   `updated_at` is seconds since 1970 (`datetime(updated_at, 'unixepoch')`).
/// - Both tables are `WITHOUT ROWID`, clustered on the key (no separate key index to update),
///   and indexed on `change_seq`, so finding the next sequence and the rows changed since a
///   reload stays cheap in a large store.
/// - `change_seq` is a global counter: every write stamps its rows with one more than the
///   largest value in either table, and `removed_keys` keeps one tombstone per deleted key,
///   so a reload reads only what changed since the sequence it last saw.
///   A tombstone's sequence is above the deleted row's, so the largest sequence never goes back.
/// - Triggers keep that true for hand edits in the `sqlite3` shell too: a DELETE records a
///   tombstone, and an INSERT or UPDATE that does not set `change_seq` gets a fresh one.
enum SQLiteSchema {
    static let applicationID: Int32 = 0x5374_4B31

    private static let nextSequence = """
        (SELECT max((SELECT coalesce(max(change_seq), 0) FROM preferences),
                    (SELECT coalesce(max(change_seq), 0) FROM removed_keys)) + 1)
        """

    private static let now = "((julianday('now') - 2440587.5) * 86400.0)"

    static let create = """
        CREATE TABLE IF NOT EXISTS preferences (
            key TEXT PRIMARY KEY NOT NULL,
            type TEXT NOT NULL,
            value ANY,
            updated_at REAL NOT NULL DEFAULT \(now),
            change_seq INTEGER NOT NULL DEFAULT 0
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS preferences_by_change_seq ON preferences (change_seq);
        CREATE TABLE IF NOT EXISTS removed_keys (
            key TEXT PRIMARY KEY NOT NULL,
            change_seq INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS removed_keys_by_change_seq ON removed_keys (change_seq);
        CREATE TRIGGER IF NOT EXISTS preferences_record_removal AFTER DELETE ON preferences BEGIN
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
        PRAGMA application_id = \(applicationID);
        """

    /// How many of our tables, indexes and triggers exist; equal to ``objectCount`` when set up.
    static let countObjects = """
        SELECT count(*) FROM sqlite_schema WHERE name IN ('preferences', 'preferences_by_change_seq', 'removed_keys',
            'removed_keys_by_change_seq', 'preferences_record_removal', 'preferences_stamp_manual_insert',
            'preferences_stamp_manual_update')
        """
    static let objectCount: Int64 = 7

    static let maximumSequence = """
        SELECT max((SELECT coalesce(max(change_seq), 0) FROM preferences),
                   (SELECT coalesce(max(change_seq), 0) FROM removed_keys))
        """
    static let selectAll = "SELECT key, type, value FROM preferences"
    static let countRows = "SELECT count(*) FROM preferences"
    static let selectChanged = "SELECT key, type, value FROM preferences WHERE change_seq > ?1"
    static let selectRemoved = """
        SELECT key FROM removed_keys WHERE change_seq > ?1 AND key NOT IN (SELECT key FROM preferences)
        """
    static let upsert = """
        INSERT INTO preferences (key, type, value, updated_at, change_seq) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (key) DO UPDATE SET type = excluded.type, value = excluded.value,
                updated_at = excluded.updated_at, change_seq = excluded.change_seq
        """
    static let delete = "DELETE FROM preferences WHERE key = ?1"
}
