/// The tables an offline replica (``ReplicaFile``) keeps beside a StoredKit SQLite file's own, so
/// the file stays a store `stored` and `sqlite3` read as any other:
///
/// - `replica`: one row saying who this replica is — its random `replica_id`, the file
///   (`file_device`, `file_inode`) that id was given to, so a copy or a restored backup is told
///   apart from its original, the id it was copied from, the clock's last stamp, and the last
///   outbox sequence handed out.
/// - `replica_stamps`: each key's stamp, the winner's: the hybrid-logical-clock stamp and the
///   replica that made the write. A removed key keeps its stamp here (its tombstone), so an older
///   set arriving later loses to the removal.
/// - `replica_outbox`: one row per key whose local write the server has not acknowledged, with
///   the sequence of its latest write (a key written twice offline is sent once, as it is now).
///
/// ```sh
/// sqlite3 replica.sqlite "select o.sequence, o.key, s.stamp_ms from replica_outbox o join replica_stamps s using (key)"
/// ```
enum ReplicaSchema {
    static let create = """
        CREATE TABLE IF NOT EXISTS replica (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            replica_id TEXT NOT NULL,
            file_device INTEGER NOT NULL,
            file_inode INTEGER NOT NULL,
            copied_from TEXT,
            clock_ms INTEGER NOT NULL DEFAULT 0,
            clock_counter INTEGER NOT NULL DEFAULT 0,
            last_sequence INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        CREATE TABLE IF NOT EXISTS replica_stamps (
            key TEXT PRIMARY KEY NOT NULL,
            stamp_ms INTEGER NOT NULL,
            stamp_counter INTEGER NOT NULL,
            replica_id TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS replica_outbox (
            key TEXT PRIMARY KEY NOT NULL,
            sequence INTEGER NOT NULL UNIQUE,
            queued_at REAL NOT NULL
        ) STRICT, WITHOUT ROWID;
        """

    static let hasTables = "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'replica_outbox'"

    static let selectReplica = """
        SELECT replica_id, file_device, file_inode, copied_from, clock_ms, clock_counter, last_sequence FROM replica
        """
    /// `?1` id, `?2` device, `?3` inode, `?4` the id it was copied from (NULL: none).
    static let giveIdentity = """
        INSERT INTO replica (singleton, replica_id, file_device, file_inode, copied_from) VALUES (1, ?1, ?2, ?3, ?4)
            ON CONFLICT (singleton) DO UPDATE SET replica_id = excluded.replica_id, file_device = excluded.file_device,
                file_inode = excluded.file_inode, copied_from = excluded.copied_from
        """
    /// `?1` clock ms, `?2` clock counter, `?3` last sequence.
    static let recordProgress = "UPDATE replica SET clock_ms = ?1, clock_counter = ?2, last_sequence = ?3"

    static let selectStamp = "SELECT stamp_ms, stamp_counter, replica_id FROM replica_stamps WHERE key = ?1"
    static let newestStamp =
        "SELECT stamp_ms, stamp_counter FROM replica_stamps ORDER BY stamp_ms DESC, stamp_counter DESC LIMIT 1"
    /// `?1` key, `?2` ms, `?3` counter, `?4` replica.
    static let upsertStamp = """
        INSERT INTO replica_stamps (key, stamp_ms, stamp_counter, replica_id) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (key) DO UPDATE SET stamp_ms = excluded.stamp_ms, stamp_counter = excluded.stamp_counter,
                replica_id = excluded.replica_id
        """
    /// `?1` key, `?2` sequence, `?3` queued at (seconds since 1970).
    static let enqueue = """
        INSERT INTO replica_outbox (key, sequence, queued_at) VALUES (?1, ?2, ?3)
            ON CONFLICT (key) DO UPDATE SET sequence = excluded.sequence, queued_at = excluded.queued_at
        """
    static let dequeue = "DELETE FROM replica_outbox WHERE key = ?1"
    static let acknowledge = "DELETE FROM replica_outbox WHERE sequence <= ?1"
    /// `?1` limit: the oldest pending writes, with their stamps and the values they hold now.
    static let pending = """
        SELECT o.key, o.sequence, o.queued_at, s.stamp_ms, s.stamp_counter, s.replica_id, p.type, p.value
            FROM replica_outbox AS o JOIN replica_stamps AS s ON s.key = o.key LEFT JOIN preferences AS p ON p.key = o.key
            ORDER BY o.sequence LIMIT ?1
        """
    static let pendingSummary = "SELECT count(*), min(queued_at) FROM replica_outbox"
}
