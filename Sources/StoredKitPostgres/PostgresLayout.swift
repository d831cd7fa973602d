import StoredKit

/// Where StoredKit's tables live in a PostgreSQL database, and how a database gets there: schema
/// `storedkit` with `storedkit.layout` (the layout's version and the StoredKit release that
/// introduced it), `storedkit.namespaces`, `storedkit.preferences`, `storedkit.removed_keys` and
/// the hand-edit functions and triggers. Every name is schema-qualified and every function runs
/// with a fixed `search_path`, so no role's `search_path` (nor an object it created in `public`)
/// changes what StoredKit's SQL or triggers touch.
///
/// Layout 1 (StoredKit 0.9.0 and before) kept `storedkit_*` tables in the application role's
/// current schema, created at its first open. A database still in it is moved by
/// ``moveFirstLayout`` (`stored postgres-setup --apply`); in the first layout's place, ``oldClientGuard``
/// leaves views whose every use fails with a message naming the release needed, so an older
/// client's open fails instead of reading a copy nobody writes any more.
///
/// ```sql
/// -- psql: which layout a database has
/// SELECT version, client FROM storedkit.layout;
/// ```
enum PostgresLayout {
    /// The layout this client reads and writes.
    ///
    /// Layout 3 (StoredKit 0.11.0) stamps every row and tombstone with the hybrid-logical-clock
    /// stamp of the write that made it (``stampColumns``), so the change made last wins whatever
    /// order writes arrive in; ``create`` adds the columns to a layout-2 database in place.
    static let version = 3
    /// The first StoredKit release that reads ``version``: what older clients are told to run.
    static let client = "0.11.0"

    /// Serialises schema creation: the ASCII bytes `StK1`, as the SQLite layout's application ID.
    static let lockKey = 0x5374_4B31

    /// Taken before ``state`` is asked again and ``create`` runs, in one transaction.
    static let lockSchema = "SELECT pg_advisory_xact_lock(\(lockKey))"

    /// Whether the layout is complete (its tables, triggers and the access policies' newest
    /// function), and what the first layout's tables are on the search path: `v` the guard of
    /// ``oldClientGuard`` (a view, and a table), `r` tables alone (a database to move), NULL nothing. A role without `USAGE` on schema `storedkit`
    /// gets 42501 here.
    static let state = """
        SELECT to_regclass('storedkit.layout') IS NOT NULL AND to_regclass('storedkit.namespaces') IS NOT NULL
            AND to_regclass('storedkit.preferences') IS NOT NULL AND to_regclass('storedkit.removed_keys') IS NOT NULL
            AND to_regclass('storedkit.access_rules') IS NOT NULL AND to_regprocedure('storedkit.group_patterns(boolean)') IS NOT NULL
            AND to_regprocedure('\(writeAloneSignature)') IS NOT NULL
            AND (SELECT count(*) FROM pg_catalog.pg_attribute WHERE attrelid IN (to_regclass('storedkit.preferences'),
                to_regclass('storedkit.removed_keys')) AND attname IN ('stamp_ms', 'stamp_counter', 'stamp_replica')
                AND NOT attisdropped) = 6
            AND (SELECT count(*) FROM pg_catalog.pg_trigger WHERE tgrelid = to_regclass('storedkit.preferences')
                AND tgname IN ('storedkit_hand_insert', 'storedkit_hand_update', 'storedkit_hand_delete')) = 3,
            (SELECT max(relkind::text) FROM pg_catalog.pg_class WHERE oid IN (to_regclass('storedkit_namespaces'),
                to_regclass('storedkit_preferences'), to_regclass('storedkit_removed_keys')))
        """

    /// The newest layout in the database, the release it needs, what the role lacks to write
    /// (``PostgresSchema/missingWritePrivileges``) and whether it is under access control
    /// (``PostgresAccess``), in one round trip: run once ``state`` found it complete.
    static let newest = """
        SELECT l.version, l.client, (\(PostgresSchema.missingWritePrivileges)),
            pg_catalog.row_security_active('storedkit.preferences')
            FROM (SELECT 1) AS one LEFT JOIN LATERAL (SELECT version, client FROM storedkit.layout ORDER BY version DESC LIMIT 1) AS l ON true
        """

    /// The schema, the tables, their indexes, the functions and triggers, and the guard for older
    /// clients. Only run when ``state`` says something is missing, under ``lockSchema``: CREATE
    /// TRIGGER takes strong table locks, which deadlock with other processes' writes if run
    /// again on a database in use. `EXECUTE` on every function is revoked from `PUBLIC`.
    static let create = """
        CREATE SCHEMA IF NOT EXISTS storedkit;
        CREATE TABLE IF NOT EXISTS storedkit.layout (
            version integer PRIMARY KEY,
            client text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
        );
        INSERT INTO storedkit.layout (version, client) VALUES (\(version), '\(client)') ON CONFLICT (version) DO NOTHING;
        CREATE TABLE IF NOT EXISTS storedkit.namespaces (
            namespace text PRIMARY KEY,
            revision bigint NOT NULL DEFAULT 0,
            schema_version bigint NOT NULL DEFAULT 0,
            pruned_revision bigint NOT NULL DEFAULT 0,
            \(notifyToken)
        );
        CREATE TABLE IF NOT EXISTS storedkit.preferences (
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
        CREATE INDEX IF NOT EXISTS preferences_by_revision ON storedkit.preferences (namespace, revision);
        CREATE TABLE IF NOT EXISTS storedkit.removed_keys (
            namespace text NOT NULL,
            key text NOT NULL,
            revision bigint NOT NULL,
            removed_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (namespace, key)
        );
        CREATE INDEX IF NOT EXISTS removed_keys_by_revision ON storedkit.removed_keys (namespace, revision);
        ALTER TABLE storedkit.preferences \(stampColumns);
        ALTER TABLE storedkit.removed_keys \(stampColumns);
        \(handEditTrigger)
        \(writeAloneFunction)
        \(PostgresAccess.create)
        \(oldClientGuard)
        """

    /// The stamp of the write that made a row or tombstone (layout 3): the hybrid-logical-clock
    /// stamp (``HybridTimestamp``: milliseconds and counter) and the replica that took it, the
    /// tie-break. Rows of a layout-2 database read as stamp zero, older than any stamped write.
    /// Stamps compare as `(stamp_ms, stamp_counter, stamp_replica COLLATE "C")`, byte order as in
    /// Swift, never the database's collation. Added with constant defaults, which PostgreSQL
    /// records in the catalog without rewriting the table.
    static let stampColumns = """
        ADD COLUMN IF NOT EXISTS stamp_ms bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS stamp_counter bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS stamp_replica text NOT NULL DEFAULT ''
        """

    /// The column that names a namespace on the channel: 128 random bits (`gen_random_uuid`, from the
    /// server's strong random source), drawn once per row, so a role that may only LISTEN learns
    /// neither the namespace's name nor anything derived from it.
    static let notifyToken = "notify_token text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '')"

    /// The `search_path` every StoredKit function runs with: the catalog, and temporary objects last.
    static let fixedSearchPath = "SET search_path = pg_catalog, pg_temp"

    /// Hand edits (`psql`: INSERT, UPDATE, DELETE on `storedkit.preferences`) get what the store's
    /// own writes do explicitly: per statement and namespace one revision bump and one NOTIFY,
    /// the rows stamped with that revision and a tombstone per removed key. Statement-level
    /// triggers with transition tables (one per event: PostgreSQL allows transition tables only
    /// then), so an UPDATE of 1,000 rows is one revision, not 1,000. The store's transactions set
    /// `storedkit.writer` (``PostgresSchema/bumpRevision``), so nothing of theirs is bumped or sent twice; the
    /// triggers set it too while they stamp rows, and put it back after.
    ///
    /// A hand edit is a write made now, on the server: its rows and tombstones get the server's
    /// clock as their stamp (``stampColumns``), replica `server`, above the stamp of what they
    /// replace (the old row, or the key's tombstone), so a hand edit wins over every write made
    /// before it, and loses to one a store makes after it, as any write does (``handStamp(replaced:)``).
    static let handEditTrigger = """
        CREATE OR REPLACE FUNCTION storedkit.bump_for_hand_edit(edited text) RETURNS bigint LANGUAGE plpgsql
            \(fixedSearchPath) AS $body$
        DECLARE
            next_revision bigint;
            token text;
        BEGIN
            INSERT INTO storedkit.namespaces AS n (namespace, revision) VALUES (edited, 1)
                ON CONFLICT (namespace) DO UPDATE SET revision = n.revision + 1
                RETURNING revision, notify_token INTO next_revision, token;
            PERFORM pg_notify('\(PostgresSchema.channel)', next_revision || ' ' || token);
            RETURN next_revision;
        END
        $body$;
        CREATE OR REPLACE FUNCTION storedkit.record_hand_edits() RETURNS trigger LANGUAGE plpgsql
            \(fixedSearchPath) AS $body$
        DECLARE
            marker text := coalesce(current_setting('storedkit.writer', true), '');
            edited text;
            next_revision bigint;
            server_ms bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        BEGIN
            IF marker = 'on' THEN RETURN NULL; END IF;
            PERFORM set_config('storedkit.writer', 'on', true);
            IF TG_OP = 'INSERT' THEN
                FOR edited IN SELECT DISTINCT namespace FROM new_rows ORDER BY 1 LOOP
                    next_revision := storedkit.bump_for_hand_edit(edited);
                    UPDATE storedkit.preferences AS p SET revision = next_revision, updated_at = now(),
                            \(handStamp(replaced: tombstoneStamp))
                        FROM new_rows AS w WHERE p.namespace = edited AND w.namespace = edited AND p.key = w.key;
                END LOOP;
            ELSIF TG_OP = 'UPDATE' THEN
                FOR edited IN SELECT namespace FROM new_rows UNION SELECT namespace FROM old_rows ORDER BY 1 LOOP
                    next_revision := storedkit.bump_for_hand_edit(edited);
                    UPDATE storedkit.preferences AS p SET revision = next_revision, updated_at = now(),
                            \(handStamp(replaced: oldRowStamp + " UNION ALL " + tombstoneStamp))
                        FROM new_rows AS w WHERE p.namespace = edited AND w.namespace = edited AND p.key = w.key;
                    INSERT INTO storedkit.removed_keys (namespace, key, revision, \(PostgresSchema.stampNames))
                        SELECT DISTINCT o.namespace, o.key, next_revision, \(handTombstoneStamp) FROM old_rows AS o
                            WHERE o.namespace = edited
                            AND NOT EXISTS (SELECT 1 FROM new_rows AS w WHERE w.namespace = o.namespace AND w.key = o.key)
                        ON CONFLICT (namespace, key) DO UPDATE SET \(handTombstoneAssignments);
                END LOOP;
            ELSE
                FOR edited IN SELECT DISTINCT namespace FROM old_rows ORDER BY 1 LOOP
                    next_revision := storedkit.bump_for_hand_edit(edited);
                    INSERT INTO storedkit.removed_keys (namespace, key, revision, \(PostgresSchema.stampNames))
                        SELECT o.namespace, o.key, next_revision, \(handTombstoneStamp) FROM old_rows AS o WHERE o.namespace = edited
                        ON CONFLICT (namespace, key) DO UPDATE SET \(handTombstoneAssignments);
                END LOOP;
            END IF;
            PERFORM set_config('storedkit.writer', marker, true);
            RETURN NULL;
        END
        $body$;
        CREATE OR REPLACE TRIGGER storedkit_hand_insert AFTER INSERT ON storedkit.preferences
            REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storedkit.record_hand_edits();
        CREATE OR REPLACE TRIGGER storedkit_hand_update AFTER UPDATE ON storedkit.preferences
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storedkit.record_hand_edits();
        CREATE OR REPLACE TRIGGER storedkit_hand_delete AFTER DELETE ON storedkit.preferences
            REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storedkit.record_hand_edits();
        REVOKE EXECUTE ON FUNCTION storedkit.bump_for_hand_edit(text), storedkit.record_hand_edits() FROM PUBLIC;
        """
}

extension PostgresLayout {
    /// The replica id of the stamps the hand-edit triggers give (``handEditTrigger``): not a
    /// lowercase UUID, so no store's id is ever it.
    static let handEditReplica = "server"

    /// The stamp columns' assignments for a row a hand edit wrote, in the triggers' `UPDATE … AS p`:
    /// the server's milliseconds (`server_ms`, read once per statement), or the newest stamp among
    /// `replaced` (a query of `ms, counter` rows) when that is at or above them, its counter one
    /// more; so the row's stamp is above what it replaced, whatever the server's clock says.
    static func handStamp(replaced: String) -> String {
        """
        (stamp_ms, stamp_counter, stamp_replica) = (SELECT greatest(b.ms, server_ms),
                                CASE WHEN b.ms >= server_ms THEN b.counter + 1 ELSE 0 END, '\(handEditReplica)'
                                FROM (\(replaced) UNION ALL SELECT 0, -1 ORDER BY 1 DESC, 2 DESC LIMIT 1) AS b(ms, counter))
        """
    }

    /// The old row of a hand-updated row `p` (the same namespace and key), as `ms, counter`.
    static let oldRowStamp =
        "SELECT o.stamp_ms, o.stamp_counter FROM old_rows AS o WHERE o.namespace = p.namespace AND o.key = p.key"
    /// The tombstone of a hand-written row `p`'s key, as `ms, counter`.
    static let tombstoneStamp =
        "SELECT r.stamp_ms, r.stamp_counter FROM storedkit.removed_keys AS r WHERE r.namespace = p.namespace AND r.key = p.key"

    /// The stamp of the tombstone of an old row `o` a hand edit deleted: above the row's (see ``handStamp(replaced:)``).
    static let handTombstoneStamp = """
        greatest(o.stamp_ms, server_ms), CASE WHEN o.stamp_ms >= server_ms THEN o.stamp_counter + 1 ELSE 0 END,
                                '\(handEditReplica)'
        """

    /// A hand deletion's tombstone replaces the key's older one; its stamp is above the deleted
    /// row's, which was above that tombstone's.
    static let handTombstoneAssignments = """
        revision = excluded.revision, removed_at = now(), stamp_ms = excluded.stamp_ms,
                                stamp_counter = excluded.stamp_counter, stamp_replica = excluded.stamp_replica
        """

    /// The signature of ``writeAloneFunction``, for ``state`` and the grants.
    static let writeAloneSignature =
        "storedkit.write_alone(text, text, text, boolean, bigint, numeric, double precision, text, bytea, "
        + "double precision, json, bigint, bigint, bigint, text, bigint)"

    /// A store's write of one stamped key (the common flush) in one call, one round trip
    /// (``PostgresSchema/writeAlone``): bumps the namespace's revision (the plain `UPDATE`, or
    /// the upsert when the row is gone: `created`), marks the transaction as the store's own,
    /// queues the notification, then runs ``PostgresSchema/stampedUpsert`` with that revision.
    /// A function, not one statement with CTEs: each statement of a `VOLATILE` function takes
    /// its own snapshot, so the stamped upsert, run after the bump waited for the namespace's row
    /// lock, sees the tombstone of a removal committed meanwhile; one statement would compare with
    /// its snapshot from before the wait, and an older set could come back over a newer removal.
    /// Returns the revision, the token, and the stamp recorded (NULL: a later write holds the key).
    /// Parameters in ``PostgresSchema/stampedUpsert``'s order (`$12`, the revision, is set here),
    /// which its body runs as is. `SECURITY INVOKER`: the role's privileges and policies apply.
    static let writeAloneFunction = """
        CREATE OR REPLACE FUNCTION storedkit.write_alone(p_namespace text, p_key text, p_type text, p_bool boolean,
            p_int bigint, p_uint numeric, p_double double precision, p_string text, p_data bytea, p_date double precision,
            p_json json, p_revision bigint, p_ms bigint, p_counter bigint, p_replica text, p_skew bigint)
            RETURNS TABLE (new_revision bigint, token text, recorded_ms bigint, recorded_counter bigint, created boolean)
            LANGUAGE plpgsql \(fixedSearchPath) AS $body$
        #variable_conflict use_column
        BEGIN
            created := false;
            UPDATE storedkit.namespaces AS n SET revision = n.revision + 1 WHERE n.namespace = p_namespace
                RETURNING n.revision, n.notify_token INTO new_revision, token;
            IF NOT FOUND THEN
                INSERT INTO storedkit.namespaces AS n (namespace, revision) VALUES (p_namespace, 1)
                    ON CONFLICT (namespace) DO UPDATE SET revision = n.revision + 1
                    RETURNING n.revision, n.notify_token INTO new_revision, token;
                created := true;
            END IF;
            PERFORM set_config('storedkit.writer', 'on', true), pg_notify('\(PostgresSchema.channel)', new_revision || ' ' || token);
            p_revision := new_revision;
            \(PostgresSchema.stampedUpsert)
                INTO recorded_ms, recorded_counter;
            RETURN NEXT;
        END
        $body$;
        REVOKE EXECUTE ON FUNCTION \(writeAloneSignature) FROM PUBLIC;
        """
}

extension PostgresLayout {
    /// What an older client is told by every use of the first layout's names.
    static let oldClientMessage =
        "the StoredKit tables of this database moved to schema storedkit (table layout \(version)); "
        + "this client reads the layout of StoredKit 0.9.0 and before: use StoredKit \(client) or newer"

    /// In the creating role's current schema (where the first layout's tables were), unless a
    /// relation of that name is there (the first layout itself, before ``moveFirstLayout``) or the
    /// role may not create there: relations named as the first layout's tables, with its columns
    /// and its three trigger names (what its open checks), whose every read and write fails with
    /// ``oldClientMessage`` (SQLSTATE 0A000): views over a function that raises it, and for
    /// `storedkit_namespaces` (where an older client's every write starts, with `INSERT … ON
    /// CONFLICT`) a simple view over the empty `storedkit.old_client_namespaces`, whose condition
    /// raises it on every read and whose table's trigger raises it on every write. They hold nothing; `PUBLIC` may use them, so any older client, whatever
    /// its role, hears why.
    static let oldClientGuard = """
        CREATE OR REPLACE FUNCTION storedkit.refuse_old_client() RETURNS SETOF record LANGUAGE plpgsql
            \(fixedSearchPath) AS $body$
        BEGIN
            RAISE EXCEPTION USING ERRCODE = 'feature_not_supported', MESSAGE = \(PostgresSetup.literal(oldClientMessage));
        END
        $body$;
        -- STABLE, though it only raises: so the planner evaluates it once per statement, before any row.
        CREATE OR REPLACE FUNCTION storedkit.refuse_old_client_read() RETURNS boolean LANGUAGE plpgsql STABLE
            \(fixedSearchPath) AS $body$
        BEGIN
            RAISE EXCEPTION USING ERRCODE = 'feature_not_supported', MESSAGE = \(PostgresSetup.literal(oldClientMessage));
        END
        $body$;
        CREATE OR REPLACE FUNCTION storedkit.refuse_old_client_write() RETURNS trigger LANGUAGE plpgsql
            \(fixedSearchPath) AS $body$
        BEGIN
            RAISE EXCEPTION USING ERRCODE = 'feature_not_supported', MESSAGE = \(PostgresSetup.literal(oldClientMessage));
        END
        $body$;
        CREATE TABLE IF NOT EXISTS storedkit.old_client_namespaces (namespace text PRIMARY KEY,
            revision bigint NOT NULL DEFAULT 0, schema_version bigint NOT NULL DEFAULT 0,
            pruned_revision bigint NOT NULL DEFAULT 0, notify_token text);
        CREATE OR REPLACE TRIGGER storedkit_refuse_old_client BEFORE INSERT OR UPDATE OR DELETE ON storedkit.old_client_namespaces
            FOR EACH ROW EXECUTE FUNCTION storedkit.refuse_old_client_write();
        GRANT EXECUTE ON FUNCTION storedkit.refuse_old_client(), storedkit.refuse_old_client_read(),
            storedkit.refuse_old_client_write() TO PUBLIC;
        DO $guard$
        DECLARE
            target text := current_schema();
        BEGIN
            IF target IS NULL OR target = 'storedkit' OR NOT has_schema_privilege(target, 'CREATE')
                OR to_regclass(format('%I.storedkit_preferences', target)) IS NOT NULL
                OR to_regclass(format('%I.storedkit_namespaces', target)) IS NOT NULL
                OR to_regclass(format('%I.storedkit_removed_keys', target)) IS NOT NULL THEN
                RETURN;
            END IF;
            -- Over a table of its own: an older client's write starts with INSERT … ON CONFLICT here,
            -- which only a simple view over a table with the key takes; the table's trigger then refuses
            -- the row, and the view's condition (evaluated once per statement) refuses every read.
            EXECUTE format('CREATE VIEW %I.storedkit_namespaces AS SELECT namespace, revision, schema_version, '
                'pruned_revision, notify_token FROM storedkit.old_client_namespaces WHERE storedkit.refuse_old_client_read()',
                target);
            EXECUTE format('CREATE VIEW %I.storedkit_preferences AS SELECT * FROM storedkit.refuse_old_client() AS t('
                'namespace text, key text, type text, bool_value boolean, int_value bigint, uint_value numeric(20, 0), '
                'double_value double precision, string_value text, data_value bytea, date_value timestamptz, json json, '
                'updated_at timestamptz, revision bigint)', target);
            EXECUTE format('CREATE VIEW %I.storedkit_removed_keys AS SELECT * FROM storedkit.refuse_old_client() AS t('
                'namespace text, key text, revision bigint, removed_at timestamptz)', target);
            EXECUTE format('CREATE TRIGGER storedkit_hand_insert INSTEAD OF INSERT ON %I.storedkit_preferences '
                'FOR EACH ROW EXECUTE FUNCTION storedkit.refuse_old_client_write()', target);
            EXECUTE format('CREATE TRIGGER storedkit_hand_update INSTEAD OF UPDATE ON %I.storedkit_preferences '
                'FOR EACH ROW EXECUTE FUNCTION storedkit.refuse_old_client_write()', target);
            EXECUTE format('CREATE TRIGGER storedkit_hand_delete INSTEAD OF DELETE ON %I.storedkit_preferences '
                'FOR EACH ROW EXECUTE FUNCTION storedkit.refuse_old_client_write()', target);
            EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I.storedkit_namespaces, %I.storedkit_preferences, '
                '%I.storedkit_removed_keys TO PUBLIC', target, target, target);
        END
        $guard$;
        """

    /// Moves a database of the first layout (its `storedkit_*` tables on the search path) into
    /// this one, then puts ``oldClientGuard`` in its place: run by `postgres-setup --apply` after
    /// ``create``, in the same transaction, as a role that owns those tables (or a member of the
    /// role that does, or a superuser). The old tables are locked first, so no older client
    /// writes during the copy; every row is copied (revisions, schema versions and tombstones as
    /// they were, each namespace a new notification token), with `storedkit.writer` set so the
    /// hand-edit triggers stamp nothing; the old tables are kept, renamed `…_layout_1`, without
    /// their triggers and functions, for the DBA to drop.
    static let moveFirstLayout = """
        DO $move$
        DECLARE
            source text := (SELECT n.nspname FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
                WHERE c.oid IN (to_regclass('storedkit_namespaces'), to_regclass('storedkit_preferences'),
                    to_regclass('storedkit_removed_keys')) AND c.relkind = 'r' LIMIT 1);
        BEGIN
            IF source IS NULL OR (SELECT relkind FROM pg_catalog.pg_class WHERE oid = to_regclass('storedkit_preferences')) = 'v' THEN
                RETURN;  -- nothing of the first layout, or its guard already
            END IF;
            -- Tables of a layout before 0.9.0 may lack some, or the columns of tombstone pruning.
            EXECUTE format('CREATE TABLE IF NOT EXISTS %I.storedkit_namespaces (namespace text PRIMARY KEY, '
                'revision bigint NOT NULL DEFAULT 0, schema_version bigint NOT NULL DEFAULT 0)', source);
            EXECUTE format('CREATE TABLE IF NOT EXISTS %I.storedkit_preferences (LIKE storedkit.preferences)', source);
            EXECUTE format('CREATE TABLE IF NOT EXISTS %I.storedkit_removed_keys (namespace text NOT NULL, key text NOT NULL, '
                'revision bigint NOT NULL)', source);
            EXECUTE format('LOCK TABLE %I.storedkit_namespaces, %I.storedkit_preferences, %I.storedkit_removed_keys '
                'IN ACCESS EXCLUSIVE MODE', source, source, source);
            EXECUTE format('ALTER TABLE %I.storedkit_namespaces ADD COLUMN IF NOT EXISTS pruned_revision bigint NOT NULL DEFAULT 0',
                source);
            EXECUTE format('ALTER TABLE %I.storedkit_removed_keys ADD COLUMN IF NOT EXISTS removed_at timestamptz NOT NULL DEFAULT now()',
                source);
            PERFORM set_config('storedkit.writer', 'on', true);
            EXECUTE format('INSERT INTO storedkit.namespaces (namespace, revision, schema_version, pruned_revision) '
                'SELECT namespace, revision, schema_version, pruned_revision FROM %I.storedkit_namespaces '
                'ON CONFLICT (namespace) DO NOTHING', source);
            EXECUTE format('INSERT INTO storedkit.preferences (namespace, key, type, bool_value, int_value, uint_value, '
                'double_value, string_value, data_value, date_value, json, updated_at, revision) '
                'SELECT namespace, key, type, bool_value, int_value, uint_value, double_value, string_value, data_value, '
                'date_value, json, updated_at, revision FROM %I.storedkit_preferences ON CONFLICT (namespace, key) DO NOTHING',
                source);
            EXECUTE format('INSERT INTO storedkit.removed_keys (namespace, key, revision, removed_at) '
                'SELECT namespace, key, revision, removed_at FROM %I.storedkit_removed_keys ON CONFLICT (namespace, key) DO NOTHING',
                source);
            PERFORM set_config('storedkit.writer', '', true);
            EXECUTE format('DROP TRIGGER IF EXISTS storedkit_hand_insert ON %I.storedkit_preferences', source);
            EXECUTE format('DROP TRIGGER IF EXISTS storedkit_hand_update ON %I.storedkit_preferences', source);
            EXECUTE format('DROP TRIGGER IF EXISTS storedkit_hand_delete ON %I.storedkit_preferences', source);
            EXECUTE format('DROP TRIGGER IF EXISTS storedkit_hand_edit ON %I.storedkit_preferences', source);
            EXECUTE format('DROP FUNCTION IF EXISTS %I.storedkit_record_hand_edits(), %I.storedkit_bump_for_hand_edit(text)',
                source, source);
            EXECUTE format('ALTER TABLE %I.storedkit_namespaces RENAME TO storedkit_namespaces_layout_1', source);
            EXECUTE format('ALTER TABLE %I.storedkit_preferences RENAME TO storedkit_preferences_layout_1', source);
            EXECUTE format('ALTER TABLE %I.storedkit_removed_keys RENAME TO storedkit_removed_keys_layout_1', source);
        END
        $move$;
        """
}

extension PostgresLayout {
    /// The layout the database holds when it is older than ``version`` (nil: newer, the same,
    /// none, or unreadable): what an open that could not upgrade it names.
    static func olderLayout(_ connection: PostgresConnection) -> Int? {
        guard let row = try? connection.query("SELECT max(version) FROM storedkit.layout").first,
            let found = row.first.flatMap({ $0.flatMap { Int($0) } }), found < version
        else { return nil }
        return found
    }
}

extension PostgresLayout {
    /// A database whose layout this client reads, and what its role lacks to write it (nil: nothing).
    struct Ready {
        var missingWritePrivilege: String?
        /// Whether row security applies to the role (``PostgresAccess``): then each namespace's
        /// open asks which rule covers it.
        var underAccessControl = false
    }

    /// The database's layout, when it is this one and complete (nil: ``create`` is to run). Throws
    /// when it holds a newer layout (naming the release it needs) or the first layout's tables
    /// still (to be moved by `stored postgres-setup --apply`, not left for a fresh empty copy).
    static func check(_ connection: PostgresConnection) throws -> Ready? {
        let row = try connection.query(state).first
        let server = connection.address.description
        guard row?.first == "t" else {
            if row?.last == "r" {
                throw StoreError.postgres(
                    server: server, code: "0A000",
                    message: "this database holds StoredKit's tables in the layout of StoredKit 0.9.0 and before "
                        + "(storedkit_preferences on the search path); move them once with "
                        + "`stored postgres-setup URL --role ROLE --apply`, run as their owner or a superuser, "
                        + "after stopping or upgrading the older clients")
            }
            return nil
        }
        let newest = try connection.query(Self.newest).first ?? []
        let found = newest.first.flatMap { $0.flatMap { Int($0) } } ?? version
        guard found <= version else {
            let needed = (newest.count > 1 ? newest[1] : nil) ?? "a newer release"
            throw StoreError.postgres(
                server: server, code: "0A000",
                message: "this database has StoredKit's table layout \(found); this client reads layout \(version): "
                    + "use StoredKit \(needed) or newer")
        }
        return Ready(
            missingWritePrivilege: newest.count > 2 ? newest[2] : nil, underAccessControl: newest.count > 3 && newest[3] == "t")
    }
}
