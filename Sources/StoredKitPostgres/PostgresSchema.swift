import StoredKit

/// The tables of a StoredKit PostgreSQL database, and the SQL that reads and writes them.
///
/// - `storedkit.namespaces`: one row per namespace with its `revision` (bumped by every write
///   transaction, `UPDATE … RETURNING`, so revision order is commit order) and the migrations'
///   `schema_version`.
/// - `storedkit.preferences`: one row per (namespace, key), the value in the typed column its
///   `type` names (see ``PostgresValueColumns``), stamped with the revision that wrote it.
/// - `storedkit.removed_keys`: one tombstone per removed key with the revision that removed it,
///   so a store reads only what changed since the revision it last saw. Tombstones older than the
///   retention period are pruned; `pruned_revision` records the newest pruned, and a store
///   whose revision is below it reads the namespace whole.
///
/// Every write notifies channel `storedkit` at commit with payload `<revision> <token>`, the token
/// being the namespace row's random `notify_token` (see ``PostgresLayout/notifyToken``); a trigger
/// sends the same for hand edits (see ``PostgresLayout/handEditTrigger``). Any role that may connect can LISTEN and NOTIFY
/// on any channel, so a notification is only a hint: it names no namespace and carries no value,
/// and a listener reads what changed from rows its own role can SELECT.
/// The tables live in schema `storedkit` (``PostgresLayout``) and every statement names them so,
/// whatever a role's `search_path`. Namespaces and keys are always bound parameters.
///
/// ```sql
/// -- psql: what user:42 holds
/// SELECT key, type, coalesce(string_value, int_value::text, json::text) FROM storedkit.preferences WHERE namespace = 'user:42';
/// ```
enum PostgresSchema {
    /// The notification channel every StoredKit write uses.
    static let channel = "storedkit"

    /// What the connected role lacks of the privileges a store's writes use (the tables' `INSERT`,
    /// `UPDATE`, `DELETE`), as one line such as `INSERT on storedkit.namespaces, UPDATE on …`, or
    /// NULL when it has them all: a role granted `SELECT` alone opens read-only.
    static let missingWritePrivileges = """
        SELECT string_agg(p.privilege || ' on ' || p.relation, ', ' ORDER BY p.position)
            FROM (VALUES (1, 'storedkit.namespaces', 'INSERT'), (2, 'storedkit.namespaces', 'UPDATE'),
                (3, 'storedkit.preferences', 'INSERT'), (4, 'storedkit.preferences', 'UPDATE'),
                (5, 'storedkit.preferences', 'DELETE'), (6, 'storedkit.removed_keys', 'INSERT'),
                (7, 'storedkit.removed_keys', 'UPDATE'), (8, 'storedkit.removed_keys', 'DELETE'))
                AS p(position, relation, privilege)
            WHERE NOT has_table_privilege(p.relation, p.privilege)
        """

    /// `$1` namespace: its revision and schema version (no row: never written).
    static let selectNamespace = "SELECT revision, schema_version, pruned_revision FROM storedkit.namespaces WHERE namespace = $1"

    /// `$1` namespace: makes sure the row exists, so ``lockNamespace`` has something to lock.
    static let ensureNamespace = "INSERT INTO storedkit.namespaces (namespace) VALUES ($1) ON CONFLICT (namespace) DO NOTHING"

    /// `$1` namespace: waits for and holds the namespace row until the transaction ends.
    static let lockNamespace = "SELECT revision, schema_version FROM storedkit.namespaces WHERE namespace = $1 FOR UPDATE"

    /// `$1` namespace, `$2` new schema version or NULL: the next revision, taking the row lock, so
    /// a second writer waits for the first and revision order is commit order. It also marks the
    /// transaction as the store's own (`storedkit.writer`), which the hand-edit trigger skips, and
    /// queues the transaction's notification (``notify``): the server sends it at commit only, so
    /// it costs no round trip of its own.
    static let bumpRevision = """
        INSERT INTO storedkit.namespaces AS n (namespace, revision, schema_version) VALUES ($1, 1, coalesce($2::bigint, 0))
            ON CONFLICT (namespace) DO UPDATE SET revision = n.revision + 1, schema_version = coalesce($2::bigint, n.schema_version)
            RETURNING \(bumpResult)
        """

    /// ``bumpRevision`` for a namespace whose row the last read or write found: a plain `UPDATE`.
    /// It skips the upsert's speculative insertion, and row-level security (``PostgresAccess``)
    /// checks it four times instead of six. No row comes back when the row is gone (deleted since)
    /// or the policies hide it from writing (a rule revoked or made read-only): nothing happened,
    /// and the caller runs ``bumpRevision``, which creates the row again or fails with the policy's error.
    static let bumpExistingRevision = """
        UPDATE storedkit.namespaces AS n SET revision = n.revision + 1, schema_version = coalesce($2::bigint, n.schema_version)
            WHERE namespace = $1
            RETURNING \(bumpResult)
        """

    /// What every bump returns: the revision and the token, after marking the transaction as the
    /// store's own and queueing its notification.
    private static let bumpResult = "revision, set_config('storedkit.writer', 'on', true), \(notify), notify_token"

    /// The notification of a commit, in the bump's RETURNING: `<revision> <token>`, nothing else.
    private static let notify = "pg_notify('\(channel)', revision::text || ' ' || notify_token)"

    private static let valueColumns = PostgresValueColumns.names.joined(separator: ", ")

    /// `$1` namespace, `$2` key, `$3` type, `$4`…`$11` the value columns, `$12` stamp
    /// milliseconds, `$13` counter, `$14` replica, `$15` the skew allowed (ms): a stamped write of
    /// one key (the common flush) in one round trip instead of four (`BEGIN`, ``bumpRevision``,
    /// ``stampedUpsert``, `COMMIT`), through ``PostgresLayout/writeAloneFunction``. The bump runs
    /// first, so the row lock orders it after every other writer as before, marks the transaction
    /// as the store's own and queues the notification. Returns the revision, the namespace's
    /// notification token, the stamp recorded (`ms`, `counter`; NULL when a later write holds the
    /// key), and whether the namespace row had to be created.
    static let writeAlone = """
        SELECT * FROM storedkit.write_alone($1, $2, $3, $4::boolean, $5::bigint, $6::numeric, $7::double precision, $8,
            $9::bytea, $10::double precision, $11::json, NULL, $12::bigint, $13::bigint, $14, $15::bigint)
        """

    /// The columns an upsert replaces when the row exists.
    private static let upsertAssignments = """
        type = excluded.type, bool_value = excluded.bool_value,
                int_value = excluded.int_value, uint_value = excluded.uint_value, double_value = excluded.double_value,
                string_value = excluded.string_value, data_value = excluded.data_value, date_value = excluded.date_value,
                json = excluded.json, updated_at = excluded.updated_at, revision = excluded.revision
        """

    /// The first row of ``selectAll`` and ``selectSince`` (none when the namespace was never
    /// written), in their columns: `bool_value` whether a whole read is due (``selectSince``
    /// only), `int_value` the namespace's revision, `uint_value` its schema version, `string_value`
    /// its notification token. In ``selectAll``, the stamp columns hold the newest tombstone's
    /// stamp (NULL: none), which a whole read shows no row of, so that the reader's clock moves
    /// past removals it sees as absent keys too (a set made after reading them wins over them).
    private static func header(wholeDue: String, tombstoneStamp: Bool) -> String {
        guard tombstoneStamp else {
            return """
                SELECT '\(headerRow)', NULL::text, NULL::text, \(wholeDue), revision, schema_version::numeric,
                    NULL::double precision, notify_token, NULL::bytea, NULL::timestamptz, NULL::json, NULL::bigint, NULL::bigint, NULL::text
                    FROM storedkit.namespaces WHERE namespace = $1
                """
        }
        return """
            SELECT '\(headerRow)', NULL::text, NULL::text, \(wholeDue), n.revision, n.schema_version::numeric,
                NULL::double precision, n.notify_token, NULL::bytea, NULL::timestamptz, NULL::json, t.stamp_ms, t.stamp_counter,
                t.stamp_replica
                FROM storedkit.namespaces AS n LEFT JOIN LATERAL (SELECT r.stamp_ms, r.stamp_counter, r.stamp_replica
                    FROM storedkit.removed_keys AS r WHERE r.namespace = $1
                    ORDER BY r.stamp_ms DESC, r.stamp_counter DESC LIMIT 1) AS t ON true
                WHERE n.namespace = $1
            """
    }

    /// `$1` namespace: the whole read, in one statement (one round trip, one snapshot, so no
    /// transaction). Every row is `kind, key, type` and the value columns
    /// (``PostgresValueColumns/names``): the header row, then every row of the namespace.
    /// Kept simple, so the server plans it once per connection (a generic plan), not at every read.
    static let selectAll = """
        \(header(wholeDue: "NULL::boolean", tombstoneStamp: true))
        UNION ALL
        SELECT 'value', key, type, \(valueColumns), \(stampNames) FROM storedkit.preferences WHERE namespace = $1
        """

    /// `$1` namespace: ``selectAll`` and every tombstone the namespace keeps, as `removed` rows with
    /// their stamps: a replica's whole read, which must learn of a removal made since it last
    /// looked as a partial read would, or a local write older than the removal would stand.
    static let selectAllWithRemovals = """
        \(selectAll)
        UNION ALL
        SELECT '\(removedRow)', r.key, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, r.stamp_ms, r.stamp_counter,
            r.stamp_replica FROM storedkit.removed_keys AS r
            WHERE r.namespace = $1
                AND NOT EXISTS (SELECT 1 FROM storedkit.preferences AS p WHERE p.namespace = r.namespace AND p.key = r.key)
        """

    /// `$1` namespace, `$2` key: the key's row or its tombstone, with the stamp, in the columns of
    /// ``selectAllWithRemovals``: what a replica goes back to when the server refused its write.
    static let selectKey = """
        SELECT 'value', key, type, \(valueColumns), \(stampNames) FROM storedkit.preferences WHERE namespace = $1 AND key = $2
        UNION ALL
        SELECT '\(removedRow)', r.key, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, r.stamp_ms, r.stamp_counter,
            r.stamp_replica FROM storedkit.removed_keys AS r
            WHERE r.namespace = $1 AND r.key = $2
                AND NOT EXISTS (SELECT 1 FROM storedkit.preferences AS p WHERE p.namespace = r.namespace AND p.key = r.key)
        """

    /// `$1` namespace, `$2` the revision the store has: the catch-up read, in one statement. The
    /// header row says whether a whole read is due instead: when the namespace's revision went
    /// back (it was deleted and written again) or `$2` is below the pruned revision (removals at
    /// or below it left no tombstone). Then the rows written after `$2` and, as `removed` rows,
    /// the keys removed after `$2` and not written again.
    static let selectSince = """
        \(header(wholeDue: "$2::bigint > revision OR $2::bigint < pruned_revision", tombstoneStamp: false))
        UNION ALL
        SELECT 'value', key, type, \(valueColumns), \(stampNames) FROM storedkit.preferences WHERE namespace = $1 AND revision > $2::bigint
        UNION ALL
        SELECT '\(removedRow)', r.key, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, r.stamp_ms, r.stamp_counter,
            r.stamp_replica FROM storedkit.removed_keys AS r
            WHERE r.namespace = $1 AND r.revision > $2::bigint
                AND NOT EXISTS (SELECT 1 FROM storedkit.preferences AS p WHERE p.namespace = r.namespace AND p.key = r.key)
        """

    /// The stamp columns (``PostgresLayout/stampColumns``) that end every row ``selectAll`` and
    /// ``selectSince`` return: what a replica merges by.
    static let stampNames = "stamp_ms, stamp_counter, stamp_replica"
    /// The index of the first stamp column in those rows.
    static let firstStampColumn: Int32 = 3 + Int32(PostgresValueColumns.names.count)

    /// The `kind` of the header row, and of ``selectSince``'s rows that name a removed key.
    static let headerRow = "header"
    static let removedRow = "removed"

    /// The stamp a write is recorded with: its own, but never more than the skew (`skew`, a
    /// parameter in milliseconds) ahead of the server's clock, so one machine a year ahead cannot
    /// make its values win for a year. `ms`, `counter`, `replica` are parameters.
    private static func clampedStamp(ms: String, counter: String, replica: String, skew: String) -> String {
        """
        SELECT least(\(ms)::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint + \(skew)::bigint) AS ms,
                \(counter)::bigint AS counter, \(replica)::text AS replica
        """
    }

    /// Whether the stamp of `row` is below the stamp `s` (``clampedStamp``), in byte order.
    private static func older(_ row: String, than s: String) -> String {
        "(\(row).stamp_ms, \(row).stamp_counter, \(row).stamp_replica COLLATE \"C\") < (\(s).ms, \(s).counter, \(s).replica COLLATE \"C\")"
    }

    /// `$1` namespace, `$2` key, `$3` type, `$4`…`$11` the value columns, `$12` revision, `$13`
    /// stamp milliseconds, `$14` counter, `$15` replica, `$16` the skew allowed (ms): the write of a
    /// stamped value, which takes effect only when it is the key's latest: its stamp (clamped,
    /// ``clampedStamp``) is above the row's and above any tombstone's. Returns the stamp recorded
    /// (below the one sent when clamped); no row when a later write holds the key, or this very
    /// write does (an upload repeated after a lost acknowledgement, which is then a no-op).
    static let stampedUpsert = """
        WITH s AS (\(clampedStamp(ms: "$13", counter: "$14", replica: "$15", skew: "$16")))
        INSERT INTO storedkit.preferences AS p (namespace, key, type, \(valueColumns), updated_at, revision, \(stampNames))
            SELECT $1, $2, $3, $4::boolean, $5::bigint, $6::numeric, $7::double precision, $8, $9::bytea,
                to_timestamp($10::double precision), $11::json, now(), $12::bigint, s.ms, s.counter, s.replica FROM s
                WHERE NOT EXISTS (SELECT 1 FROM storedkit.removed_keys AS r
                    WHERE r.namespace = $1 AND r.key = $2 AND NOT \(older("r", than: "s")))
            ON CONFLICT (namespace, key) DO UPDATE SET \(upsertAssignments), stamp_ms = excluded.stamp_ms,
                stamp_counter = excluded.stamp_counter, stamp_replica = excluded.stamp_replica
                WHERE (p.stamp_ms, p.stamp_counter, p.stamp_replica COLLATE "C")
                    < (excluded.stamp_ms, excluded.stamp_counter, excluded.stamp_replica COLLATE "C")
            RETURNING p.stamp_ms, p.stamp_counter
        """

    /// `$1` namespace, `$2` key, `$3` revision, `$4` stamp milliseconds, `$5` counter, `$6`
    /// replica, `$7` the skew allowed (ms): a stamped removal, a tombstone with the stamp, which
    /// takes effect only when it is the key's latest write (see ``stampedUpsert``): it deletes an
    /// older row and records or replaces an older tombstone. A removal is recorded even of a key
    /// the server never held, so a set made earlier elsewhere and sent later still loses to it.
    /// Returns the stamp recorded; no row when a later write holds the key (or this one).
    static let stampedRemove = """
        WITH s AS (\(clampedStamp(ms: "$4", counter: "$5", replica: "$6", skew: "$7"))),
        removed AS (
            DELETE FROM storedkit.preferences AS p USING s WHERE p.namespace = $1 AND p.key = $2 AND \(older("p", than: "s"))
                RETURNING p.key
        )
        INSERT INTO storedkit.removed_keys AS r (namespace, key, revision, \(stampNames))
            SELECT $1, $2, $3::bigint, s.ms, s.counter, s.replica FROM s
                WHERE NOT EXISTS (SELECT 1 FROM storedkit.preferences AS p
                    WHERE p.namespace = $1 AND p.key = $2 AND NOT \(older("p", than: "s")))
            ON CONFLICT (namespace, key) DO UPDATE SET revision = excluded.revision, removed_at = now(),
                stamp_ms = excluded.stamp_ms, stamp_counter = excluded.stamp_counter, stamp_replica = excluded.stamp_replica
                WHERE (r.stamp_ms, r.stamp_counter, r.stamp_replica COLLATE "C")
                    < (excluded.stamp_ms, excluded.stamp_counter, excluded.stamp_replica COLLATE "C")
            RETURNING r.stamp_ms, r.stamp_counter
        """

    /// `$1` namespace, `$2` key: the newest stamp the server holds for the key (its row's, or its
    /// tombstone's) as `ms, counter, replica`; no row when it holds neither. What a stamped write
    /// that took no effect compares with its own: the same write applied already, or a later one.
    static let keyStamp = """
        SELECT k.stamp_ms, k.stamp_counter, k.stamp_replica FROM (
            SELECT stamp_ms, stamp_counter, stamp_replica FROM storedkit.preferences WHERE namespace = $1 AND key = $2
            UNION ALL
            SELECT stamp_ms, stamp_counter, stamp_replica FROM storedkit.removed_keys WHERE namespace = $1 AND key = $2
        ) AS k ORDER BY k.stamp_ms DESC, k.stamp_counter DESC, k.stamp_replica COLLATE "C" DESC LIMIT 1
        """

    /// `$1` namespace, `$2` retention in seconds: drops older tombstones and records the newest
    /// revision dropped, so a store behind it reads the namespace whole.
    static let pruneTombstones = """
        WITH gone AS (
            DELETE FROM storedkit.removed_keys
                WHERE namespace = $1 AND removed_at < now() - make_interval(secs => $2::double precision) RETURNING revision)
        UPDATE storedkit.namespaces SET pruned_revision = greatest(pruned_revision, (SELECT max(revision) FROM gone))
            WHERE namespace = $1 AND EXISTS (SELECT 1 FROM gone)
        """
}
