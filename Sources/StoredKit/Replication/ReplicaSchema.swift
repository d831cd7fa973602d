/// The tables an offline replica (``ReplicaFile``) keeps beside a StoredKit SQLite file's own, so
/// the file stays a store `stored` and `sqlite3` read as any other:
///
/// - `replica`: one row saying who this replica is: its random `replica_id`, the file
///   (`file_device`, `file_inode`) that id was given to, so a copy or a restored backup is told
///   apart from its original, and the id it was copied from.
/// - `replica_stamps`: each key's stamp, the winner's: the hybrid-logical-clock stamp and the
///   replica that made the write. A removed key keeps its stamp here (its tombstone), so an older
///   set arriving later loses to the removal. `queued_at` is set while the key's local write waits
///   for a server (the outbox: a key written twice offline is sent once, as it is now) and cleared
///   when one acknowledged it or a newer write from elsewhere beat it. `migration` is the schema
///   version of the migration that queued it (NULL: the app's own write): such a write is sent
///   only to a namespace that no other replica migrated to that version first.
///
/// - `replica_sync`: the server and namespace the replica mirrors (the server's address without a
///   password), the server's revision it has read up to and the namespace's notification token
///   then (the catch-up cursor: a later process reads only what changed since), and when it last
///   finished a round with the server.
///
/// One table for stamps and outbox, and no per-commit bookkeeping row: a durable write changes
/// one page of it beside the value's, which is most of what the stamp costs. The clock resumes
/// past the newest stamp in the file, and the stamps of one replica's writes, never going back,
/// order its outbox and name what a server acknowledged.
///
/// ```sh
/// sqlite3 replica.sqlite "select key, stamp_ms, stamp_counter from replica_stamps where queued_at is not null"
/// ```
enum ReplicaSchema {
    static let create = """
        CREATE TABLE IF NOT EXISTS replica (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            replica_id TEXT NOT NULL,
            file_device INTEGER NOT NULL,
            file_inode INTEGER NOT NULL,
            copied_from TEXT
        ) STRICT;
        CREATE TABLE IF NOT EXISTS replica_stamps (
            key TEXT PRIMARY KEY NOT NULL,
            stamp_ms INTEGER NOT NULL,
            stamp_counter INTEGER NOT NULL,
            replica_id TEXT NOT NULL,
            queued_at REAL,
            migration INTEGER
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS replica_sync (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            server TEXT NOT NULL,
            namespace TEXT NOT NULL,
            revision INTEGER NOT NULL,
            notify_token TEXT,
            last_synced REAL
        ) STRICT;
        """

    static let hasTables = """
        SELECT count(*) = 2 FROM sqlite_schema WHERE type = 'table' AND name IN ('replica_stamps', 'replica_sync')
        """

    static let selectReplica = "SELECT replica_id, file_device, file_inode, copied_from FROM replica"
    /// `?1` id, `?2` device, `?3` inode, `?4` the id it was copied from (NULL: none).
    static let giveIdentity = """
        INSERT INTO replica (singleton, replica_id, file_device, file_inode, copied_from) VALUES (1, ?1, ?2, ?3, ?4)
            ON CONFLICT (singleton) DO UPDATE SET replica_id = excluded.replica_id, file_device = excluded.file_device,
                file_inode = excluded.file_inode, copied_from = excluded.copied_from
        """

    static let selectStamp = """
        SELECT stamp_ms, stamp_counter, replica_id, queued_at IS NOT NULL FROM replica_stamps WHERE key = ?1
        """
    static let newestStamp = """
        SELECT stamp_ms, stamp_counter FROM replica_stamps ORDER BY stamp_ms DESC, stamp_counter DESC LIMIT 1
        """
    /// `?1` key, `?2` ms, `?3` counter, `?4` replica, `?5` queued at (seconds since 1970; NULL: not
    /// queued), `?6` the migration's schema version (NULL: not a migration's write).
    static let upsertStamp = """
        INSERT INTO replica_stamps (key, stamp_ms, stamp_counter, replica_id, queued_at, migration)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (key) DO UPDATE SET stamp_ms = excluded.stamp_ms, stamp_counter = excluded.stamp_counter,
                replica_id = excluded.replica_id, queued_at = excluded.queued_at, migration = excluded.migration
        """
    /// `?1` ms, `?2` counter: what a server acknowledged, up to that stamp.
    static let acknowledge = """
        UPDATE replica_stamps SET queued_at = NULL WHERE queued_at IS NOT NULL AND (stamp_ms, stamp_counter) <= (?1, ?2)
        """
    /// `?1` limit: the oldest pending writes, with their stamps and the values they hold now.
    static let pending = """
        SELECT s.key, s.queued_at, s.stamp_ms, s.stamp_counter, s.replica_id, p.type, p.value, s.migration
            FROM replica_stamps AS s LEFT JOIN preferences AS p ON p.key = s.key
            WHERE s.queued_at IS NOT NULL ORDER BY s.stamp_ms, s.stamp_counter LIMIT ?1
        """
    /// `?1` key, `?2` ms, `?3` counter: the key's outbox entry leaves when it still holds the write
    /// that was sent (a write made since has another stamp and stays).
    static let acknowledgeWrite = """
        UPDATE replica_stamps SET queued_at = NULL WHERE key = ?1 AND stamp_ms = ?2 AND stamp_counter = ?3
        """
    /// `?1` key, `?2`, `?3` the stamp sent, `?4`, `?5` the stamp the server recorded instead (clamped).
    static let adoptStamp = """
        UPDATE replica_stamps SET queued_at = NULL, stamp_ms = ?4, stamp_counter = ?5
            WHERE key = ?1 AND stamp_ms = ?2 AND stamp_counter = ?3
        """
    /// `?1` key: forgets the key's stamp (the server holds nothing of it).
    static let forgetStamp = "DELETE FROM replica_stamps WHERE key = ?1"
    /// The keys whose stamp came from elsewhere or was acknowledged: not waiting in the outbox.
    static let settledKeys = "SELECT key FROM replica_stamps WHERE queued_at IS NULL"
    static let selectSync = "SELECT server, namespace, revision, notify_token, last_synced FROM replica_sync"
    /// `?1` server, `?2` namespace, `?3` revision, `?4` token, `?5` last synced (NULL: keep it).
    static let recordSync = """
        INSERT INTO replica_sync (singleton, server, namespace, revision, notify_token, last_synced) VALUES (1, ?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (singleton) DO UPDATE SET server = excluded.server, namespace = excluded.namespace,
                revision = excluded.revision, notify_token = excluded.notify_token,
                last_synced = coalesce(excluded.last_synced, replica_sync.last_synced)
        """
    static let pendingSummary = "SELECT count(*), min(queued_at) FROM replica_stamps WHERE queued_at IS NOT NULL"
}
