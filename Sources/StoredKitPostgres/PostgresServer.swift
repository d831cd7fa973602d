import Dispatch
import StoredKit
import Synchronization

/// The connections one process keeps to one server, shared by every namespace opened there:
/// a small command pool (at most ``maximumConnections``) and one ``PostgresListener``. It lives
/// while any backend of that server does; 10,000 namespaces use no more connections than one.
///
/// ```swift
/// let server = PostgresServer.shared(for: address)
/// let revision = try server.withConnection(timeout: .seconds(5)) { connection in try connection.query("SELECT 1") }
/// ```
final class PostgresServer: Sendable {
    /// The most command connections one process opens to one server.
    static let maximumConnections = 4
    private static let registry = Mutex<[String: WeakServer]>([:])

    let address: PostgresAddress
    private let slots = DispatchSemaphore(value: PostgresServer.maximumConnections)
    private let idle = Mutex<[PostgresConnection]>([])
    private let schemaReady = Mutex(false)
    /// What the role lacks to write (``PostgresSchema/missingWritePrivileges``), found with the tables.
    private let missingPrivileges = Mutex<String?>(nil)
    /// Whether row security applies to the role (``PostgresAccess``), found with the tables.
    private let accessControlled = Mutex(false)
    private let listenerState = Mutex<PostgresListener?>(nil)
    /// Whether the server is known to be down: then every command fails at once.
    let outage = PostgresOutage()

    private struct WeakServer {
        weak var server: PostgresServer?
    }

    private init(address: PostgresAddress) {
        self.address = address
    }

    deinit {
        listenerState.withLock { $0?.stop() }
    }

    /// The process's server for `address`, made on first use.
    static func shared(for address: PostgresAddress) -> PostgresServer {
        registry.withLock { servers in
            if let server = servers[address.poolKey]?.server { return server }
            servers = servers.filter { $0.value.server != nil }
            let server = PostgresServer(address: address)
            servers[address.poolKey] = WeakServer(server: server)
            return server
        }
    }

    /// The listener connection's thread, started on first use.
    var listener: PostgresListener {
        get throws {
            try listenerState.withLock { listener in
                if let listener { return listener }
                let started = try PostgresListener(address: address, outage: outage)
                listener = started
                return started
            }
        }
    }

    /// The listener connection's thread if one was started, without starting one.
    var startedListener: PostgresListener? {
        listenerState.withLock { $0 }
    }

    /// Connections open now (idle ones; checked-out ones are not counted), for tests.
    var idleConnectionCount: Int { idle.withLock { $0.count } }

    /// Runs `body` in one transaction (`begin` starts it) on a connection of the pool, and
    /// commits; a throw rolls back. A pooled connection found dead at `begin` (cut by the server,
    /// an administrator or a failover) is replaced by a fresh one at once, since nothing ran on it.
    /// While the server is known to be down it fails at once; otherwise within about `timeout`.
    /// What the server said meanwhile (`WARNING: ...`) goes to `notices`.
    func withTransaction<R>(
        _ begin: String = "BEGIN", timeout: Duration, notices: ([String]) -> Void = { _ in },
        _ body: (PostgresConnection) throws -> R
    ) throws -> R {
        try withConnection(timeout: timeout, notices: notices) { connection in
            try body(connection)
        } begin: { connection in
            try connection.run(begin)
        } end: { connection in
            try connection.run("COMMIT")
        }
    }

    /// Runs one statement outside a transaction, with the same replacement of a dead connection.
    func withConnection<R>(
        timeout: Duration, notices: ([String]) -> Void = { _ in }, _ body: (PostgresConnection) throws -> R
    ) throws -> R {
        try withConnection(timeout: timeout, notices: notices, body, begin: { _ in }, end: { _ in })
    }

    /// Runs `body`, one statement that commits on its own, outside a transaction. A pooled
    /// connection found closed before it is sent (``PostgresConnection/checkStillOpen()``, no
    /// round trip) is replaced by a fresh one, as ``withTransaction(_:timeout:notices:_:)``
    /// does at `BEGIN`; one cut while it runs fails it (it may have committed).
    func withStatement<R>(
        timeout: Duration, notices: ([String]) -> Void = { _ in }, _ body: (PostgresConnection) throws -> R
    ) throws -> R {
        try withConnection(timeout: timeout, notices: notices, body, begin: { try $0.checkStillOpen() }, end: { _ in })
    }

    /// Runs `body`, which only reads (one statement: its own snapshot), outside a transaction.
    /// A pooled connection found dead (cut by the server, an administrator or a failover) is
    /// replaced by a fresh one and `body` run again, as ``withTransaction(_:timeout:notices:_:)``
    /// does at `BEGIN`: a read that failed changed nothing.
    ///
    /// ```swift
    /// let count = try server.withReading(timeout: .seconds(5)) { connection in try connection.query("SELECT 1").count }  //=> 1
    /// ```
    func withReading<R>(
        timeout: Duration, notices: ([String]) -> Void = { _ in }, _ body: (PostgresConnection) throws -> R
    ) throws -> R {
        try withConnection(timeout: timeout, notices: notices, body, begin: { _ in }, end: { _ in }, rerunsBody: true)
    }

    /// Checks a connection out (opening one when none is idle and fewer than
    /// ``maximumConnections`` exist; waiting at most `timeout` otherwise), runs `begin`,
    /// `body` and `end`, and returns it; one left broken or inside a transaction is closed instead.
    /// A connection that cannot be opened, or breaks, records an outage (see ``PostgresOutage``).
    private func withConnection<R>(
        timeout: Duration, notices: ([String]) -> Void, _ body: (PostgresConnection) throws -> R,
        begin: (PostgresConnection) throws -> Void, end: (PostgresConnection) throws -> Void, rerunsBody: Bool = false
    ) throws -> R {
        if let known = outage.current(lapse: timeout) { throw PostgresOutage.error(known, server: address.description) }
        let (seconds, attoseconds) = timeout.components
        let wait = DispatchTimeInterval.milliseconds(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
        guard slots.wait(timeout: .now() + wait) == .success else {
            throw StoreError.postgres(
                server: address.description, code: "53300",
                message: "all \(Self.maximumConnections) pooled connections stayed busy for \(timeout)")
        }
        defer { slots.signal() }
        // Another command may have found the server down while this one waited for a connection.
        if let known = outage.current(lapse: timeout) { throw PostgresOutage.error(known, server: address.description) }
        var connection: PostgresConnection
        do {
            connection = try idle.withLock { $0.popLast() } ?? PostgresConnection(address: address, timeout: timeout)
            connection.commandTimeout = timeout
            do {
                try ensureSchema(connection)
                try begin(connection)
            } catch StoreError.postgres where !connection.isAlive && !connection.timedOut {
                connection = try PostgresConnection(address: address, timeout: timeout)
                try ensureSchema(connection)
                try begin(connection)
            }
        } catch {
            noteOutage(error)
            throw error
        }
        defer {
            let heard = connection.takeNotices()
            if !heard.isEmpty { notices(heard) }
            if connection.isReusable { idle.withLock { $0.append(connection) } }
        }
        do {
            let result: R
            do {
                result = try body(connection)
            } catch StoreError.postgres where rerunsBody && !connection.isAlive && !connection.timedOut {
                connection = try PostgresConnection(address: address, timeout: timeout)
                try ensureSchema(connection)
                result = try body(connection)
            }
            try end(connection)
            return result
        } catch {
            connection.rollback()
            if !connection.isAlive { noteOutage(error) }
            // A table dropped under an open store: the next command creates the tables again.
            if case .postgres(_, "42P01", _)? = error as? StoreError { schemaReady.withLock { $0 = false } }
            throw error
        }
    }

    /// Records an outage when `error` says the server cannot be reached (not for a refused
    /// password or a missing database, which are not outages).
    private func noteOutage(_ error: any Error) {
        guard case .postgres(_, let code, let message)? = error as? StoreError,
            code.hasPrefix("08") || code.hasPrefix("57P0")
        else { return }
        outage.begin(reason: message, byListener: false)
        // The listener may not know yet (a silent server looks idle): it reconnects, and says when it is back.
        listenerState.withLock { $0 }?.recheck(reason: message)
    }

    /// Creates the tables once per process and server, under the advisory lock, unless they are
    /// all there (checked again under the lock; see ``PostgresLayout/check(_:)``).
    private func ensureSchema(_ connection: PostgresConnection) throws {
        defer { planGenerically(connection) }
        guard !schemaReady.withLock({ $0 }) else { return }
        var ready: PostgresLayout.Ready?
        do {
            ready = try PostgresLayout.check(connection)
            if ready == nil {
                try connection.run("BEGIN")
                do {
                    // Another process may have created them while this one waited for the lock.
                    try connection.query(PostgresLayout.lockSchema)
                    if try PostgresLayout.check(connection) == nil { try connection.run(PostgresLayout.create) }
                    try connection.run("COMMIT")
                    _ = connection.takeNotices()  // "relation exists, skipping": ours, not news
                } catch {
                    connection.rollback()
                    throw error
                }
                ready = try PostgresLayout.check(connection)
            }
        } catch {
            throw PostgresSetup.explained(error, olderLayout: PostgresLayout.olderLayout(connection))
        }
        missingPrivileges.withLock { $0 = ready?.missingWritePrivilege }
        accessControlled.withLock { $0 = ready?.underAccessControl ?? false }
        schemaReady.withLock { $0 = true }
    }

    /// For a role under access control, plans each prepared statement once per session: the
    /// policies (``PostgresAccess``) are planned into every statement, and custom plans (PostgreSQL's
    /// default for the first executions, and whenever they look cheaper) re-plan them at every
    /// execution. Best effort: a connection that refuses keeps the default.
    private func planGenerically(_ connection: PostgresConnection) {
        guard underAccessControl, !connection.plansGenerically else { return }
        connection.plansGenerically = (try? connection.run("SET plan_cache_mode = force_generic_plan")) != nil
    }

    /// What this process's role lacks to write StoredKit's tables (nil: nothing), as found when
    /// the first command checked the tables.
    ///
    /// ```swift
    /// server.missingWritePrivilege  //=> "INSERT on storedkit.namespaces, ..." for a role granted SELECT alone
    /// ```
    var missingWritePrivilege: String? { missingPrivileges.withLock { $0 } }

    /// Asks again what this process's role lacks to write (after the server refused a write for a
    /// privilege, which a `REVOKE` since the first command explains), so ``missingWritePrivilege``
    /// says what is true now. Best effort: a failed question keeps what was known.
    func recheckWritePrivileges(_ connection: PostgresConnection) {
        guard let row = try? connection.query(PostgresSchema.missingWritePrivileges).first, let missing = row.first
        else { return }
        missingPrivileges.withLock { $0 = missing }
    }

    /// Whether this process's role is under access control (``PostgresAccess``): not the tables'
    /// owner, a superuser or a `BYPASSRLS` role. Then every namespace's open asks for its rule.
    var underAccessControl: Bool { accessControlled.withLock { $0 } }
}
