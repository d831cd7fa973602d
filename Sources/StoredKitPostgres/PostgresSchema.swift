import StoredKit

/// The tables of a StoredKit PostgreSQL database, and the SQL that reads and writes them.
///
/// - `storedkit_namespaces`: one row per namespace with its `revision` (bumped by every write
///   transaction, `UPDATE … RETURNING`, so revision order is commit order) and the migrations'
///   `schema_version`.
/// - `storedkit_preferences`: one row per (namespace, key), the value in the typed column its
///   `type` names (see ``PostgresValueColumns``), stamped with the revision that wrote it.
/// - `storedkit_removed_keys`: one tombstone per removed key with the revision that removed it,
///   so a store reads only what changed since the revision it last saw. Tombstones older than the
///   retention period are pruned; `pruned_revision` records the newest pruned, and a store
///   whose revision is below it reads the namespace whole.
///
/// Every write notifies channel `storedkit` at commit with payload `<revision> <token>`, the token
/// being the namespace row's random `notify_token` (see ``notifyToken``); a trigger sends the
/// same for hand edits (see ``handEditTrigger``). Any role that may connect can LISTEN and NOTIFY
/// on any channel, so a notification is only a hint: it names no namespace and carries no value,
/// and a listener reads what changed from rows its own role can SELECT.
/// Everything is created on first open under `pg_advisory_xact_lock`, so processes opening a
/// fresh database together all succeed; columns added since the first layout are added then too. Namespaces and keys are always bound parameters.
///
/// ```sql
/// -- psql: what user:42 holds
/// SELECT key, type, coalesce(string_value, int_value::text, json::text) FROM storedkit_preferences WHERE namespace = 'user:42';
/// ```
enum PostgresSchema {
    /// The notification channel every StoredKit write uses.
    static let channel = "storedkit"

    /// Serialises schema creation: the ASCII bytes `StK1`, as the SQLite layout's application ID.
    static let lockKey = 0x5374_4B31

    /// Taken before ``tablesExist`` is asked again and ``create`` runs, in one transaction.
    static let lockSchema = "SELECT pg_advisory_xact_lock(\(lockKey))"

    /// The tables, their indexes and the trigger. Only run when ``tablesExist`` says they are not
    /// all there, under ``lockSchema``: its ALTER and CREATE TRIGGER take strong table locks,
    /// which deadlock with other processes' writes if run again on a database in use.
    static let create = """
        CREATE TABLE IF NOT EXISTS storedkit_namespaces (
            namespace text PRIMARY KEY,
            revision bigint NOT NULL DEFAULT 0,
            schema_version bigint NOT NULL DEFAULT 0,
            pruned_revision bigint NOT NULL DEFAULT 0,
            \(notifyToken)
        );
        CREATE TABLE IF NOT EXISTS storedkit_preferences (
            namespace text NOT NULL,
            key text NOT NULL,
            type text NOT NULL,
            bool_value boolean,
            int_value bigint,
            uint_value numeric(20, 0),
            double_value double precision,
            string_value text,
            data_value bytea,
            date_value timestamptz,
            json json,
            updated_at timestamptz NOT NULL DEFAULT now(),
            revision bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (namespace, key)
        );
        CREATE INDEX IF NOT EXISTS storedkit_preferences_by_revision ON storedkit_preferences (namespace, revision);
        CREATE TABLE IF NOT EXISTS storedkit_removed_keys (
            namespace text NOT NULL,
            key text NOT NULL,
            revision bigint NOT NULL,
            removed_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (namespace, key)
        );
        CREATE INDEX IF NOT EXISTS storedkit_removed_keys_by_revision ON storedkit_removed_keys (namespace, revision);
        ALTER TABLE storedkit_namespaces ADD COLUMN IF NOT EXISTS pruned_revision bigint NOT NULL DEFAULT 0;
        ALTER TABLE storedkit_removed_keys ADD COLUMN IF NOT EXISTS removed_at timestamptz NOT NULL DEFAULT now();
        ALTER TABLE storedkit_namespaces ADD COLUMN IF NOT EXISTS \(notifyToken);
        \(handEditTrigger)
        """

    /// The column that names a namespace on the channel: 128 random bits (`gen_random_uuid`, from the
    /// server's strong random source), drawn once per row, so a role that may only LISTEN learns
    /// neither the namespace's name nor anything derived from it. The volatile default gives every
    /// row of an older database its own token when the column is added.
    static let notifyToken = "notify_token text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '')"

    /// Hand edits (`psql`: INSERT, UPDATE, DELETE on `storedkit_preferences`) get what the store's
    /// own writes do explicitly: per statement and namespace one revision bump and one NOTIFY,
    /// the rows stamped with that revision and a tombstone per removed key. Statement-level
    /// triggers with transition tables (one per event: PostgreSQL allows transition tables only
    /// then), so an UPDATE of 1,000 rows is one revision, not 1,000. The store's transactions set
    /// `storedkit.writer` (``bumpRevision``), so nothing of theirs is bumped or sent twice; the
    /// triggers set it too while they stamp rows, and put it back after.
    static let handEditTrigger = """
        CREATE OR REPLACE FUNCTION storedkit_bump_for_hand_edit(edited text) RETURNS bigint LANGUAGE plpgsql AS $body$
        DECLARE
            next_revision bigint;
            token text;
        BEGIN
            INSERT INTO storedkit_namespaces AS n (namespace, revision) VALUES (edited, 1)
                ON CONFLICT (namespace) DO UPDATE SET revision = n.revision + 1
                RETURNING revision, notify_token INTO next_revision, token;
            PERFORM pg_notify('\(channel)', next_revision || ' ' || token);
            RETURN next_revision;
        END
        $body$;
        CREATE OR REPLACE FUNCTION storedkit_record_hand_edits() RETURNS trigger LANGUAGE plpgsql AS $body$
        DECLARE
            marker text := coalesce(current_setting('storedkit.writer', true), '');
            edited text;
            next_revision bigint;
        BEGIN
            IF marker = 'on' THEN RETURN NULL; END IF;
            PERFORM set_config('storedkit.writer', 'on', true);
            IF TG_OP = 'INSERT' THEN
                FOR edited IN SELECT DISTINCT namespace FROM new_rows ORDER BY 1 LOOP
                    next_revision := storedkit_bump_for_hand_edit(edited);
                    UPDATE storedkit_preferences AS p SET revision = next_revision, updated_at = now() FROM new_rows AS w
                        WHERE p.namespace = edited AND w.namespace = edited AND p.key = w.key;
                END LOOP;
            ELSIF TG_OP = 'UPDATE' THEN
                FOR edited IN SELECT namespace FROM new_rows UNION SELECT namespace FROM old_rows ORDER BY 1 LOOP
                    next_revision := storedkit_bump_for_hand_edit(edited);
                    UPDATE storedkit_preferences AS p SET revision = next_revision, updated_at = now() FROM new_rows AS w
                        WHERE p.namespace = edited AND w.namespace = edited AND p.key = w.key;
                    INSERT INTO storedkit_removed_keys (namespace, key, revision)
                        SELECT DISTINCT o.namespace, o.key, next_revision FROM old_rows AS o WHERE o.namespace = edited
                            AND NOT EXISTS (SELECT 1 FROM new_rows AS w WHERE w.namespace = o.namespace AND w.key = o.key)
                        ON CONFLICT (namespace, key) DO UPDATE SET revision = excluded.revision, removed_at = now();
                END LOOP;
            ELSE
                FOR edited IN SELECT DISTINCT namespace FROM old_rows ORDER BY 1 LOOP
                    next_revision := storedkit_bump_for_hand_edit(edited);
                    INSERT INTO storedkit_removed_keys (namespace, key, revision)
                        SELECT o.namespace, o.key, next_revision FROM old_rows AS o WHERE o.namespace = edited
                        ON CONFLICT (namespace, key) DO UPDATE SET revision = excluded.revision, removed_at = now();
                END LOOP;
            END IF;
            PERFORM set_config('storedkit.writer', marker, true);
            RETURN NULL;
        END
        $body$;
        DROP TRIGGER IF EXISTS storedkit_hand_edit ON storedkit_preferences;
        DROP FUNCTION IF EXISTS storedkit_record_hand_edit();
        CREATE OR REPLACE TRIGGER storedkit_hand_insert AFTER INSERT ON storedkit_preferences
            REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storedkit_record_hand_edits();
        CREATE OR REPLACE TRIGGER storedkit_hand_update AFTER UPDATE ON storedkit_preferences
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storedkit_record_hand_edits();
        CREATE OR REPLACE TRIGGER storedkit_hand_delete AFTER DELETE ON storedkit_preferences
            REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storedkit_record_hand_edits();
        """

    static let tablesExist = """
        SELECT to_regclass('storedkit_namespaces') IS NOT NULL AND to_regclass('storedkit_preferences') IS NOT NULL
            AND to_regclass('storedkit_removed_keys') IS NOT NULL
            AND (SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass('storedkit_preferences')
                AND tgname IN ('storedkit_hand_insert', 'storedkit_hand_update', 'storedkit_hand_delete')) = 3
            AND NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'storedkit_hand_edit' AND tgrelid = to_regclass('storedkit_preferences'))
            AND (SELECT count(*) FROM pg_attribute WHERE NOT attisdropped
                AND ((attrelid = to_regclass('storedkit_namespaces') AND attname = 'pruned_revision')
                    OR (attrelid = to_regclass('storedkit_namespaces') AND attname = 'notify_token')
                    OR (attrelid = to_regclass('storedkit_removed_keys') AND attname = 'removed_at'))) = 3
        """

    /// What the connected role lacks of the privileges a store's writes use (the tables' `INSERT`,
    /// `UPDATE`, `DELETE`), as one line such as `INSERT on storedkit_namespaces, UPDATE on …`, or
    /// NULL when it has them all: a role granted `SELECT` alone opens read-only.
    static let missingWritePrivileges = """
        SELECT string_agg(p.privilege || ' on ' || p.relation, ', ' ORDER BY p.position)
            FROM (VALUES (1, 'storedkit_namespaces', 'INSERT'), (2, 'storedkit_namespaces', 'UPDATE'),
                (3, 'storedkit_preferences', 'INSERT'), (4, 'storedkit_preferences', 'UPDATE'),
                (5, 'storedkit_preferences', 'DELETE'), (6, 'storedkit_removed_keys', 'INSERT'),
                (7, 'storedkit_removed_keys', 'UPDATE'), (8, 'storedkit_removed_keys', 'DELETE'))
                AS p(position, relation, privilege)
            WHERE NOT has_table_privilege(p.relation, p.privilege)
        """

    /// `$1` namespace: its revision and schema version (no row: never written).
    static let selectNamespace = "SELECT revision, schema_version, pruned_revision FROM storedkit_namespaces WHERE namespace = $1"

    /// `$1` namespace: makes sure the row exists, so ``lockNamespace`` has something to lock.
    static let ensureNamespace = "INSERT INTO storedkit_namespaces (namespace) VALUES ($1) ON CONFLICT (namespace) DO NOTHING"

    /// `$1` namespace: waits for and holds the namespace row until the transaction ends.
    static let lockNamespace = "SELECT revision, schema_version FROM storedkit_namespaces WHERE namespace = $1 FOR UPDATE"

    /// `$1` namespace, `$2` new schema version or NULL: the next revision, taking the row lock, so
    /// a second writer waits for the first and revision order is commit order. It also marks the
    /// transaction as the store's own (`storedkit.writer`), which the hand-edit trigger skips, and
    /// queues the transaction's notification (``notify``): the server sends it at commit only, so
    /// it costs no round trip of its own.
    static let bumpRevision = """
        INSERT INTO storedkit_namespaces AS n (namespace, revision, schema_version) VALUES ($1, 1, coalesce($2::bigint, 0))
            ON CONFLICT (namespace) DO UPDATE SET revision = n.revision + 1, schema_version = coalesce($2::bigint, n.schema_version)
            RETURNING revision, set_config('storedkit.writer', 'on', true), \(notify), notify_token
        """

    /// The notification of a commit, in the bump's RETURNING: `<revision> <token>`, nothing else.
    private static let notify = "pg_notify('\(channel)', revision::text || ' ' || notify_token)"

    private static let valueColumns = PostgresValueColumns.names.joined(separator: ", ")

    /// `$1` namespace, `$2` key, `$3` type, `$4`…`$11` the value columns: a write of one key (the common flush) as one statement that commits on its own,
    /// one round trip instead of four (`BEGIN`, ``bumpRevision``, ``upsert``, `COMMIT`). The bump
    /// runs first (the upsert reads its revision), so the row lock orders it after every other
    /// writer as before, marks the transaction as the store's own and queues the notification.
    /// Returns the revision and the namespace's notification token.
    static let upsertAlone = """
        WITH bumped AS (
            INSERT INTO storedkit_namespaces AS n (namespace, revision) VALUES ($1, 1)
                ON CONFLICT (namespace) DO UPDATE SET revision = n.revision + 1
                RETURNING revision, set_config('storedkit.writer', 'on', true), \(notify), notify_token
        ), written AS (
            INSERT INTO storedkit_preferences (namespace, key, type, \(valueColumns), updated_at, revision)
                SELECT $1, $2, $3, $4::boolean, $5::bigint, $6::numeric, $7::double precision, $8, $9::bytea,
                    to_timestamp($10::double precision), $11::json, now(), revision FROM bumped
                ON CONFLICT (namespace, key) DO UPDATE SET \(upsertAssignments)
        )
        SELECT revision, notify_token FROM bumped
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
    /// its notification token.
    private static func header(wholeDue: String) -> String {
        """
        SELECT '\(headerRow)', NULL::text, NULL::text, \(wholeDue), revision, schema_version::numeric,
            NULL::double precision, notify_token, NULL::bytea, NULL::timestamptz, NULL::json
            FROM storedkit_namespaces WHERE namespace = $1
        """
    }

    /// `$1` namespace: the whole read, in one statement (one round trip, one snapshot, so no
    /// transaction). Every row is `kind, key, type` and the value columns
    /// (``PostgresValueColumns/names``): the header row, then every row of the namespace.
    /// Kept simple, so the server plans it once per connection (a generic plan), not at every read.
    static let selectAll = """
        \(header(wholeDue: "NULL::boolean"))
        UNION ALL
        SELECT 'value', key, type, \(valueColumns) FROM storedkit_preferences WHERE namespace = $1
        """

    /// `$1` namespace, `$2` the revision the store has: the catch-up read, in one statement. The
    /// header row says whether a whole read is due instead: when the namespace's revision went
    /// back (it was deleted and written again) or `$2` is below the pruned revision (removals at
    /// or below it left no tombstone). Then the rows written after `$2` and, as `removed` rows,
    /// the keys removed after `$2` and not written again.
    static let selectSince = """
        \(header(wholeDue: "$2::bigint > revision OR $2::bigint < pruned_revision"))
        UNION ALL
        SELECT 'value', key, type, \(valueColumns) FROM storedkit_preferences WHERE namespace = $1 AND revision > $2::bigint
        UNION ALL
        SELECT '\(removedRow)', r.key, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM storedkit_removed_keys AS r
            WHERE r.namespace = $1 AND r.revision > $2::bigint
                AND NOT EXISTS (SELECT 1 FROM storedkit_preferences AS p WHERE p.namespace = r.namespace AND p.key = r.key)
        """

    /// The `kind` of the header row, and of ``selectSince``'s rows that name a removed key.
    static let headerRow = "header"
    static let removedRow = "removed"

    /// `$1` namespace, `$2` key, `$3` type, `$4`…`$11` the value columns, `$12` revision.
    static let upsert = """
        INSERT INTO storedkit_preferences (namespace, key, type, \(valueColumns), updated_at, revision)
            VALUES ($1, $2, $3, $4::boolean, $5::bigint, $6::numeric, $7::double precision, $8, $9::bytea,
                to_timestamp($10::double precision), $11::json, now(), $12::bigint)
            ON CONFLICT (namespace, key) DO UPDATE SET \(upsertAssignments)
        """

    /// `$1` namespace, `$2` key, `$3` revision: deletes the row and records its tombstone.
    static let remove = """
        WITH removed AS (DELETE FROM storedkit_preferences WHERE namespace = $1 AND key = $2 RETURNING key)
        INSERT INTO storedkit_removed_keys (namespace, key, revision) SELECT $1, key, $3::bigint FROM removed
            ON CONFLICT (namespace, key) DO UPDATE SET revision = excluded.revision
        """

    /// `$1` namespace, `$2` retention in seconds: drops older tombstones and records the newest
    /// revision dropped, so a store behind it reads the namespace whole.
    static let pruneTombstones = """
        WITH gone AS (
            DELETE FROM storedkit_removed_keys
                WHERE namespace = $1 AND removed_at < now() - make_interval(secs => $2::double precision) RETURNING revision)
        UPDATE storedkit_namespaces SET pruned_revision = greatest(pruned_revision, (SELECT max(revision) FROM gone))
            WHERE namespace = $1 AND EXISTS (SELECT 1 FROM gone)
        """
}
