/// The layout of a StoredKit SQLite file, and the SQL that reads and writes it.
///
/// - `PRAGMA application_id` is `0x53744B31`, the ASCII bytes `StK1` ("StoredKit, layout 1"),
///   so `file(1)` and tools can tell our files apart; a later layout would use `StK2`.
/// - `PRAGMA user_version` holds the migration schema version (``BackendSnapshot/schemaVersion``).
/// - `preferences` holds one row per key (see ``SQLiteValueColumns`` for `type` and `value`);
///   `updated_at` is seconds since 1970 (`datetime(updated_at, 'unixepoch')`).
/// - Both tables are `WITHOUT ROWID`, clustered on the key, with no other index: a one-key commit
///   then changes a single B-tree page per table it touches, which is most of a durable write's cost.
/// - `change_seq` is a global counter: every write stamps its rows with one more than the
///   largest value in either table, and `removed_keys` keeps one tombstone per deleted key,
///   so a reload reads only what changed since the sequence it last saw.
///   A tombstone's sequence is above the deleted row's, so the largest sequence never goes back.
///   The backend knows the largest value without a query while no other connection has
///   committed (`PRAGMA data_version`), and otherwise learns it from the rows it reloads.
/// - Triggers keep that true for hand edits in the `sqlite3` shell too: a DELETE that did not
///   record its own tombstone gets one, and an INSERT or UPDATE that does not set `change_seq`
///   gets a fresh one. These scan both tables (there is no `change_seq` index), which is fine
///   for a hand edit; the backend's own writes never set them off.
/// - Files from the first version of this layout had `change_seq` indexes and a trigger that
///   computed a sequence on every DELETE; opening such a file drops them. A trigger that is
///   missing or no longer compiles is created again the same way; one whose text merely differs
///   (another StoredKit version's) is left alone.
enum SQLiteSchema {
    static let applicationID: Int32 = 0x5374_4B31

    private static let nextSequence = """
        (SELECT max((SELECT coalesce(max(change_seq), 0) FROM preferences),
                    (SELECT coalesce(max(change_seq), 0) FROM removed_keys)) + 1)
        """

    private static let now = "((julianday('now') - 2440587.5) * 86400.0)"

    static let create =
        """
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
        PRAGMA application_id = \(applicationID);

        """ + triggers.map { "DROP TRIGGER IF EXISTS \($0.name);\n\($0.sql);\n" }.joined()

    /// Our triggers, each with its text exactly as SQLite keeps it in `sqlite_schema`. An open
    /// compares the kept text with these (``isCurrent(_:)``) instead of compiling the triggers,
    /// which cost a tenth of opening a 10,000-key file. Only a text that differs is compiled
    /// (another StoredKit version's is left alone if it does); one that does not compile, like
    /// a missing one, is dropped and created again by ``create``.
    static let triggers: [(name: String, sql: String)] = [
        (
            "preferences_record_untracked_removal",
            """
            CREATE TRIGGER preferences_record_untracked_removal AFTER DELETE ON preferences
                WHEN NOT EXISTS (SELECT 1 FROM removed_keys WHERE key = OLD.key AND change_seq > OLD.change_seq) BEGIN
                INSERT INTO removed_keys (key, change_seq) VALUES (OLD.key, max(OLD.change_seq + 1, \(nextSequence)))
                    ON CONFLICT (key) DO UPDATE SET change_seq = excluded.change_seq;
            END
            """
        ),
        (
            "preferences_stamp_manual_insert",
            """
            CREATE TRIGGER preferences_stamp_manual_insert AFTER INSERT ON preferences
                WHEN NEW.change_seq = 0 BEGIN
                UPDATE preferences SET change_seq = \(nextSequence) WHERE key = NEW.key;
            END
            """
        ),
        (
            "preferences_stamp_manual_update",
            """
            CREATE TRIGGER preferences_stamp_manual_update AFTER UPDATE ON preferences
                WHEN NEW.change_seq = OLD.change_seq BEGIN
                UPDATE preferences SET change_seq = \(nextSequence), updated_at = \(now) WHERE key = NEW.key;
            END
            """
        ),
    ]

    /// The first layout's objects, which ``create`` drops.
    static let firstLayoutObjects = ["preferences_by_change_seq", "removed_keys_by_change_seq", "preferences_record_removal"]

    /// Every schema object's name and text; read with `PRAGMA application_id` in one transaction.
    static let listObjects = "SELECT name, coalesce(sql, '') FROM sqlite_schema"

    /// Whether `objects` (name to text, from ``listObjects``) is this layout exactly: both tables,
    /// our triggers with our text, and nothing left of the first layout.
    static func isCurrent(_ objects: [String: String]) -> Bool {
        hasTables(objects) && !lacksParts(objects) && triggers.allSatisfy { objects[$0.name] == $0.sql }
    }

    /// Whether both tables exist (else the file is new, and ``create`` makes everything).
    static func hasTables(_ objects: [String: String]) -> Bool {
        objects["preferences"] != nil && objects["removed_keys"] != nil
    }

    /// Whether a trigger is missing or something of the first layout is left: ``create`` repairs both.
    static func lacksParts(_ objects: [String: String]) -> Bool {
        triggers.contains { objects[$0.name] == nil } || firstLayoutObjects.contains { objects[$0] != nil }
    }

    /// The statements that set off every trigger: preparing them compiles the triggers.
    static let settingOffTriggers = [upsert, recordRemoval, delete]

    /// Names every column of both tables without setting off a trigger: preparing it proves the
    /// tables' definitions are intact.
    static let everyColumn = """
        SELECT p.key, p.type, p.value, p.updated_at, p.change_seq, r.key, r.change_seq
            FROM preferences AS p, removed_keys AS r
        """

    /// A scan of both tables: only for a reload that found nothing newer (did the file go back?)
    /// and for a write without a current snapshot.
    static let maximumSequence = """
        SELECT max((SELECT coalesce(max(change_seq), 0) FROM preferences),
                   (SELECT coalesce(max(change_seq), 0) FROM removed_keys))
        """
    static let maximumRemovedSequence = "SELECT coalesce(max(change_seq), 0) FROM removed_keys"
    static let selectAll = "SELECT key, type, value, change_seq FROM preferences"
    static let countRows = "SELECT count(*) FROM preferences"
    static let selectChanged = "SELECT key, type, value, change_seq FROM preferences WHERE change_seq > ?1"
    static let selectRemoved = """
        SELECT key, change_seq FROM removed_keys WHERE change_seq > ?1 AND key NOT IN (SELECT key FROM preferences)
        """
    static let upsert = """
        INSERT INTO preferences (key, type, value, updated_at, change_seq) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (key) DO UPDATE SET type = excluded.type, value = excluded.value,
                updated_at = excluded.updated_at, change_seq = excluded.change_seq
        """
    /// Records the tombstone before ``delete`` (only for a key that exists), so the DELETE
    /// trigger finds it and computes nothing.
    static let recordRemoval = """
        INSERT INTO removed_keys (key, change_seq) SELECT key, ?2 FROM preferences WHERE key = ?1
            ON CONFLICT (key) DO UPDATE SET change_seq = excluded.change_seq
        """
    static let delete = "DELETE FROM preferences WHERE key = ?1"
    /// The tombstone's sequence after a delete: a first-layout trigger, re-created by an older
    /// StoredKit sharing the file, may have set it above ours.
    static let removedSequence = "SELECT change_seq FROM removed_keys WHERE key = ?1"
}
