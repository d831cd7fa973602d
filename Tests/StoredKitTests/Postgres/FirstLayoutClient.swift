import Foundation

@testable import StoredKitPostgres

/// The SQL of StoredKit 0.9.0 (release commit 932be7d), byte for byte as its PostgreSQL backend
/// ran it against the first table layout: what an application role ran at its first open, what
/// its open checks, how it read a namespace and how it committed a write. The upgrade tests
/// write a database with it, and show that a client running it fails against the new layout.
enum FirstLayoutClient {
    /// `PostgresSchema.create` of 0.9.0, with its hand-edit trigger: run at first open.
    static let create = """
        CREATE TABLE IF NOT EXISTS storedkit_namespaces (
            namespace text PRIMARY KEY,
            revision bigint NOT NULL DEFAULT 0,
            schema_version bigint NOT NULL DEFAULT 0,
            pruned_revision bigint NOT NULL DEFAULT 0
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
        CREATE OR REPLACE FUNCTION storedkit_bump_for_hand_edit(edited text) RETURNS bigint LANGUAGE plpgsql AS $body$
        DECLARE
            next_revision bigint;
        BEGIN
            INSERT INTO storedkit_namespaces AS n (namespace, revision) VALUES (edited, 1)
                ON CONFLICT (namespace) DO UPDATE SET revision = n.revision + 1 RETURNING revision INTO next_revision;
            PERFORM pg_notify('storedkit', next_revision || ' ' || edited);
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

    /// `PostgresSchema.tablesExist` of 0.9.0: the check its every open starts with.
    static let tablesExist = """
        SELECT to_regclass('storedkit_namespaces') IS NOT NULL AND to_regclass('storedkit_preferences') IS NOT NULL
            AND to_regclass('storedkit_removed_keys') IS NOT NULL
            AND (SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass('storedkit_preferences')
                AND tgname IN ('storedkit_hand_insert', 'storedkit_hand_update', 'storedkit_hand_delete')) = 3
            AND NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'storedkit_hand_edit' AND tgrelid = to_regclass('storedkit_preferences'))
            AND (SELECT count(*) FROM pg_attribute WHERE NOT attisdropped
                AND ((attrelid = to_regclass('storedkit_namespaces') AND attname = 'pruned_revision')
                    OR (attrelid = to_regclass('storedkit_removed_keys') AND attname = 'removed_at'))) = 2
        """

    /// `PostgresSchema.selectAll` of 0.9.0 (`$1` namespace): the header row, then every row.
    static let selectAll = """
        SELECT 'header', NULL::text, NULL::text, NULL::boolean, revision, schema_version::numeric,
            NULL::double precision, NULL::text, NULL::bytea, NULL::timestamptz, NULL::json
            FROM storedkit_namespaces WHERE namespace = $1
        UNION ALL
        SELECT 'value', key, type, bool_value, int_value, uint_value, double_value, string_value, data_value, date_value, json FROM storedkit_preferences WHERE namespace = $1
        """

    /// `PostgresSchema.selectNamespace` of 0.9.0 (`$1` namespace): what `startWatching` looks at.
    static let selectNamespace = "SELECT revision, schema_version, pruned_revision FROM storedkit_namespaces WHERE namespace = $1"

    /// `PostgresNamespaceSummary.listing` of 0.9.0 (`$1` one namespace or NULL): `stored namespaces` and `stored read`.
    static let listing = """
        SELECT n.namespace, n.schema_version, n.revision,
            (SELECT count(*) FROM storedkit_preferences AS p WHERE p.namespace = n.namespace)
            FROM storedkit_namespaces AS n WHERE $1::text IS NULL OR n.namespace = $1::text ORDER BY n.namespace
        """

    /// `PostgresSchema.bumpRevision` of 0.9.0 (`$1` namespace, `$2` schema version or NULL,
    /// `$3` the notice tail, NULL here): the write transaction's first statement.
    static let bumpRevision = """
        INSERT INTO storedkit_namespaces AS n (namespace, revision, schema_version) VALUES ($1, 1, coalesce($2::bigint, 0))
            ON CONFLICT (namespace) DO UPDATE SET revision = n.revision + 1, schema_version = coalesce($2::bigint, n.schema_version)
            RETURNING revision, set_config('storedkit.writer', 'on', true), (CASE WHEN $3::text IS NOT NULL THEN pg_notify('storedkit',
                'v2 ' || revision::text || ' ' || (revision - 1)::text || ' ' || $3::text) END),
                pg_notify('storedkit', revision::text || ' ' || $1)
        """

    /// `PostgresSchema.upsert` of 0.9.0 (`$1` namespace, `$2` key, `$3` type, `$4`…`$11` the value columns, `$12` revision).
    static let upsert = """
        INSERT INTO storedkit_preferences (namespace, key, type, bool_value, int_value, uint_value, double_value, string_value, data_value, date_value, json, updated_at, revision)
            VALUES ($1, $2, $3, $4::boolean, $5::bigint, $6::numeric, $7::double precision, $8, $9::bytea,
                to_timestamp($10::double precision), $11::json, now(), $12::bigint)
            ON CONFLICT (namespace, key) DO UPDATE SET type = excluded.type, bool_value = excluded.bool_value,
                int_value = excluded.int_value, uint_value = excluded.uint_value, double_value = excluded.double_value,
                string_value = excluded.string_value, data_value = excluded.data_value, date_value = excluded.date_value,
                json = excluded.json, updated_at = excluded.updated_at, revision = excluded.revision
        """

    /// `PostgresSchema.remove` of 0.9.0 (`$1` namespace, `$2` key, `$3` revision).
    static let remove = """
        WITH removed AS (DELETE FROM storedkit_preferences WHERE namespace = $1 AND key = $2 RETURNING key)
        INSERT INTO storedkit_removed_keys (namespace, key, revision) SELECT $1, key, $3::bigint FROM removed
            ON CONFLICT (namespace, key) DO UPDATE SET revision = excluded.revision
        """

    /// Commits one write transaction as 0.9.0 did: `values` (key → type and value columns, in
    /// `PostgresValueColumns` order) upserted, `removed` keys removed; returns the revision.
    @discardableResult
    static func write(
        _ connection: PostgresConnection, namespace: String, schemaVersion: Int? = nil,
        values: [String: (type: String, columns: [String?])], removed: [String] = []
    ) throws -> Int64 {
        try connection.run("BEGIN")
        do {
            let bumped = try connection.query(bumpRevision, [namespace, schemaVersion.map(String.init), nil])
            let revision = bumped.first?.first.flatMap { $0.flatMap { Int64($0) } } ?? 0
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try connection.query(upsert, [namespace, key, value.type] + value.columns + [String(revision)])
            }
            for key in removed { try connection.query(remove, [namespace, key, String(revision)]) }
            try connection.run("COMMIT")
            return revision
        } catch {
            connection.rollback()
            throw error
        }
    }
}
