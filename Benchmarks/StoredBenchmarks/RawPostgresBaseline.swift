import CStoredPostgres
import Foundation

/// What a developer would write with libpq alone, on the same server and tables as the store:
/// the floors the PostgreSQL scenarios compare with. One connection, prepared statements, text
/// parameters, as the backend uses.
///
/// ```swift
/// let raw = try RawPostgresBaseline(url: server.url)
/// let latency = try raw.durableTransaction(namespace: "raw", value: 1)  // BEGIN, bump, upsert, NOTIFY, COMMIT
/// ```
final class RawPostgresBaseline {
    private let connection: OpaquePointer
    private var prepared: Set<String> = []

    init(url: String) throws {
        guard let connection = PQconnectdb(url), PQstatus(connection) == CONNECTION_OK else {
            throw BenchmarkError.unexpected("raw libpq cannot connect to the benchmark's server")
        }
        self.connection = connection
        PQsetNoticeReceiver(connection, { _, _ in }, nil)  // "relation exists, skipping" is no news
        try run("CREATE TABLE IF NOT EXISTS bench_raw_upsert (key text PRIMARY KEY, value bigint NOT NULL)")
    }

    deinit {
        PQfinish(connection)
    }

    /// The store's write transaction, statement for statement: the revision bump that orders
    /// commits, the upsert of the row, one `pg_notify`, each a round trip.
    func durableTransaction(namespace: String, value: Int) throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try run("BEGIN")
        let revision = try execute("bump", Self.bump, [namespace])
        try execute("upsert", Self.upsert, [namespace, "value", String(value), revision])
        try execute("notify", "SELECT pg_notify('storedkit', $1)", ["\(revision) \(namespace)"])
        try run("COMMIT")
        return clock.now - start
    }

    /// One autocommit upsert into a plain two-column table: the least a durable write costs.
    /// One write as a replica's upload sends it (`PostgresSchema.stampedUpsert`, written out, with
    /// its revision bump and notice): `key` of `namespace` set to `value`, stamped `milliseconds` and
    /// `counter` by `replica`, in one transaction. What a plain store's or a replica's observer must notice.
    func stampedTransaction(
        namespace: String, key: String, value: Int, milliseconds: Int64, counter: Int, replica: String
    ) throws {
        try run("BEGIN")
        let revision = try execute("stamped-bump", Self.notifyingBump, [namespace])
        try execute(
            "stamped-upsert", Self.stampedUpsert,
            [namespace, key, String(value), revision, String(milliseconds), String(counter), replica])
        try run("COMMIT")
    }

    /// `count` keys of `namespace` (`key0`…), each set to its number and stamped `milliseconds`,
    /// counter its number, in one transaction: one bump, one prepared stamped upsert per row, COMMIT.
    /// What a replica's sync of as many pending writes sends, with nothing around it.
    func stampedBatch(namespace: String, count: Int, milliseconds: Int64) throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try run("BEGIN")
        let revision = try execute("stamped-bump", Self.notifyingBump, [namespace])
        for key in 0..<count {
            try execute(
                "stamped-upsert", Self.stampedUpsert,
                [namespace, "key\(key)", String(key), revision, String(milliseconds), String(key), "raw"])
        }
        try run("COMMIT")
        return clock.now - start
    }

    func bareUpsert(value: Int) throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try execute("bare", Self.bareUpsert, [String(value)])
        return clock.now - start
    }

    /// The rows of a namespace as the store reads them at open; every field is touched, none
    /// copied: the floor of reading them.
    func selectRows(namespace: String) throws -> (rows: Int, duration: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try query("select", Self.select, [namespace])
        defer { PQclear(result) }
        var bytes = 0
        let rows = PQntuples(result)
        let columns = PQnfields(result)
        for row in 0..<rows {
            for column in 0..<columns where PQgetisnull(result, row, column) == 0 {
                bytes &+= Int(PQgetlength(result, row, column)) &+ Int(PQgetvalue(result, row, column).pointee)
            }
        }
        blackHole(bytes)
        return (Int(rows), clock.now - start)
    }

    /// The number the single-row, single-column `sql` returns (a count).
    func count(_ sql: String) throws -> Int {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        try check(result, sql)
        guard PQntuples(result) == 1 else { throw BenchmarkError.unexpected("no row from \(sql)") }
        return Int(String(cString: PQgetvalue(result, 0, 0))) ?? 0
    }

    /// The same SELECT read into a `[String: Int]`, as a Swift developer using libpq would:
    /// one String per key, the integer parsed from its text.
    func selectDictionary(namespace: String) throws -> (rows: Int, duration: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try query("select", Self.select, [namespace])
        defer { PQclear(result) }
        let rows = PQntuples(result)
        var values: [String: Int] = [:]
        values.reserveCapacity(Int(rows))
        for row in 0..<rows where PQgetisnull(result, row, 3) == 0 {
            values[String(cString: PQgetvalue(result, row, 0))] = Int(String(cString: PQgetvalue(result, row, 3)))
        }
        blackHole(values)
        return (values.count, clock.now - start)
    }

    /// A durable transaction that upserts a row and notifies `channel` with `payload`: what the
    /// writer of the notification baseline does.
    func notifyingTransaction(channel: String, payload: String) throws {
        try run("BEGIN")
        try execute("notify-upsert", Self.bareUpsert, [String(payload.count)])
        try execute("notify-send", "SELECT pg_notify($1, $2)", [channel, payload])
        try run("COMMIT")
    }

    /// LISTENs on `channel`, then collects `count` notifications whose payload is the sender's
    /// `monotonicNanoseconds()`, waiting in `poll` on the socket (at most `timeout` in all);
    /// returns each one's delay in seconds.
    func receive(_ count: Int, on channel: String, timeout: Duration, afterListening start: () throws -> Void) throws
        -> [Double]
    {
        try run("LISTEN \(channel)")
        try start()
        var delays: [Double] = []
        let deadline = ContinuousClock.now + timeout
        while delays.count < count, ContinuousClock.now < deadline {
            var poller = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 || errno == EINTR else { break }
            guard PQconsumeInput(connection) == 1 else { throw BenchmarkError.unexpected("the raw listener lost its connection") }
            while let notification = PQnotifies(connection) {
                let received = monotonicNanoseconds()
                if let payload = notification.pointee.extra, let sent = Int64(String(cString: payload)) {
                    delays.append(Double(received - sent) / 1e9)
                }
                PQfreemem(notification)
            }
        }
        try run("UNLISTEN \(channel)")
        return delays
    }

    /// Runs fixed SQL (several statements allowed) without parameters.
    func run(_ sql: String) throws {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        try check(result, sql)
    }

    /// Runs a prepared statement and returns the first field of its first row (or "").
    @discardableResult
    private func execute(_ name: String, _ sql: String, _ parameters: [String]) throws -> String {
        let result = try query(name, sql, parameters)
        defer { PQclear(result) }
        guard PQntuples(result) > 0, PQnfields(result) > 0 else { return "" }
        return String(cString: PQgetvalue(result, 0, 0))
    }

    private func query(_ name: String, _ sql: String, _ parameters: [String]) throws -> OpaquePointer? {
        if !prepared.contains(name) {
            let result = PQprepare(connection, name, sql, Int32(parameters.count), nil)
            defer { PQclear(result) }
            try check(result, sql)
            prepared.insert(name)
        }
        let copies = parameters.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer<CChar>($0) }
        let result = pointers.withUnsafeBufferPointer { values in
            PQexecPrepared(connection, name, Int32(parameters.count), values.baseAddress, nil, nil, 0)
        }
        do {
            try check(result, sql)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    private func check(_ result: OpaquePointer?, _ sql: String) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return }
        let message = String(cString: PQerrorMessage(connection))
        throw BenchmarkError.unexpected("raw libpq: \(message) in \(sql.prefix(60))")
    }

    private static let bareUpsert = """
        INSERT INTO bench_raw_upsert (key, value) VALUES ('value', $1::bigint)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
        """

    /// The store's own statements (PostgresSchema), written out again: the baseline must not call StoredKit.
    private static let bump = """
        INSERT INTO storedkit.namespaces AS n (namespace, revision) VALUES ($1, 1)
            ON CONFLICT (namespace) DO UPDATE SET revision = n.revision + 1
            RETURNING revision, set_config('storedkit.writer', 'on', true)
        """
    private static let upsert = """
        INSERT INTO storedkit.preferences (namespace, key, type, int_value, updated_at, revision)
            VALUES ($1, $2, 'int', $3::bigint, now(), $4::bigint)
            ON CONFLICT (namespace, key) DO UPDATE SET type = excluded.type, int_value = excluded.int_value,
                updated_at = excluded.updated_at, revision = excluded.revision
        """
    private static let notifyingBump = """
        INSERT INTO storedkit.namespaces AS n (namespace, revision) VALUES ($1, 1)
            ON CONFLICT (namespace) DO UPDATE SET revision = n.revision + 1
            RETURNING revision, set_config('storedkit.writer', 'on', true),
                pg_notify('storedkit', revision::text || ' ' || notify_token)
        """
    private static let stampedUpsert = """
        INSERT INTO storedkit.preferences
                (namespace, key, type, int_value, updated_at, revision, stamp_ms, stamp_counter, stamp_replica)
            VALUES ($1, $2, 'int', $3::bigint, now(), $4::bigint, $5::bigint, $6::bigint, $7)
            ON CONFLICT (namespace, key) DO UPDATE SET type = excluded.type, int_value = excluded.int_value,
                updated_at = excluded.updated_at, revision = excluded.revision, stamp_ms = excluded.stamp_ms,
                stamp_counter = excluded.stamp_counter, stamp_replica = excluded.stamp_replica
        """
    private static let select = """
        SELECT key, type, bool_value, int_value, uint_value, double_value, string_value, data_value,
            date_value, json FROM storedkit.preferences WHERE namespace = $1
        """
}
