internal import CStoredPostgres
import Foundation
import StoredKit

/// One libpq connection, used by one thread at a time (the pool hands it out exclusively, and
/// the listener thread owns its own), hence `@unchecked Sendable`.
///
/// Every statement with values is prepared once per connection and run with bound text
/// parameters, so no namespace, key or value is ever part of SQL text. The server's notices and
/// warnings are collected (``takeNotices()``) for the store's events, never printed to stderr.
///
/// ```swift
/// let connection = try PostgresConnection(address: address)
/// let rows = try connection.query("SELECT revision FROM storedkit.namespaces WHERE namespace = $1", ["user:42"])
/// rows.first?[0]  //=> "7"
/// ```
final class PostgresConnection: @unchecked Sendable {
    /// The oldest server this backend supports (`PQserverVersion` form): Debian 12's PostgreSQL 15.
    static let minimumServerVersion: Int32 = 150_000

    let address: PostgresAddress
    private let handle: OpaquePointer
    private var preparedNames: [String: String] = [:]
    /// How long one command may wait for the server's answer; the pool sets its caller's timeout.
    var commandTimeout: Duration
    /// Whether this session plans prepared statements once, generically (``PostgresServer`` sets it
    /// for roles under access control, whose policies make every custom plan cost about a millisecond).
    var plansGenerically = false
    /// The server's notices and warnings since ``takeNotices()`` last ran; the receiver libpq calls holds it unretained.
    private let notices: NoticeInbox
    /// Set when a command timed out: what the server still sends is unknown, so the connection is dropped.
    private var abandoned = false

    /// Connects and checks the server version. Unless the URL sets them otherwise, connecting
    /// gives up after `timeout` (libpq's `connect_timeout`, whole seconds, at least 2), a
    /// command whose data the server does not acknowledge fails after it (`tcp_user_timeout`),
    /// and keepalives find a silent peer of an idle connection within about twice it.
    ///
    /// GSSAPI encryption is not negotiated (`gssencmode=disable`) unless the URL, `PGGSSENCMODE`
    /// or a service file asks for it: libpq's default tries it first whenever Kerberos
    /// credentials could exist, which runs Kerberos code in every connection attempt for servers
    /// that almost never offer it (and Kerberos' exit-time teardown once aborted a process here).
    init(address: PostgresAddress, timeout: Duration = .seconds(5)) throws {
        let seconds = Self.wholeSeconds(timeout)
        var keywords = [
            "connect_timeout", "tcp_user_timeout", "keepalives_idle", "keepalives_interval", "keepalives_count",
        ]
        var values = ["\(seconds)", "\(seconds * 1000)", "\(seconds)", "1", "\(seconds)"]
        if !address.choosesGSSEncryption && getenv("PGGSSENCMODE") == nil && getenv("PGSERVICE") == nil {
            keywords.append("gssencmode")
            values.append("disable")
        }
        // The URL comes last, so what it sets wins (expand_dbname).
        keywords.append("dbname")
        values.append(address.connectionString)
        let connection = try LibpqGate.shared.call(server: address.description) {
            try PostgresConnection.withCStrings(keywords) { keywords in
                try PostgresConnection.withCStrings(values) { values in
                    try Self.connect(keywords, values, within: .seconds(seconds), server: address.description)
                }
            }
        }
        guard let connection else {
            throw StoreError.postgres(server: address.description, code: "08001", message: "out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = address.redact(PostgresConnection.message(PQerrorMessage(connection)))
            PQfinish(connection)
            throw StoreError.postgres(server: address.description, code: Self.connectionFailureCode(message), message: message)
        }
        // Collected, not printed: the pool hands them to the store's events after each use.
        let inbox = NoticeInbox()
        PQsetNoticeReceiver(
            connection,
            { argument, result in
                guard let argument, let result else { return }
                let severity = PQresultErrorField(result, Int32(UInt8(ascii: "S"))).map { String(cString: $0) } ?? "NOTICE"
                let message = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? ""
                Unmanaged<NoticeInbox>.fromOpaque(argument).takeUnretainedValue().messages.append("\(severity): \(message)")
            }, Unmanaged.passUnretained(inbox).toOpaque())
        notices = inbox
        let version = PQserverVersion(connection)
        guard version >= Self.minimumServerVersion else {
            PQfinish(connection)
            throw StoreError.postgres(
                server: address.description, code: "0A000",
                message: "the server runs PostgreSQL \(version / 10_000).\(version % 10_000); StoredKit needs 15 or newer")
        }
        self.address = address
        self.handle = connection
        self.commandTimeout = timeout
        LibpqGate.shared.opened(ObjectIdentifier(self), socket: PQsocket(connection), usesTLS: PQsslInUse(connection) == 1)
    }

    deinit {
        LibpqGate.shared.closing(ObjectIdentifier(self))
        // Once the process is exiting, the connection is left to the kernel: PQfinish would run
        // TLS and Kerberos code while their libraries are torn down.
        if LibpqGate.shared.enter() {
            PQfinish(handle)
            LibpqGate.shared.leave()
        }
    }

    /// Whether the connection still works and is outside any transaction, so the pool may keep it.
    var isReusable: Bool {
        isAlive && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// Whether the connection is still up (as far as libpq knows: it learns of a cut at the next use).
    var isAlive: Bool { !abandoned && PQstatus(handle) == CONNECTION_OK }

    /// The notices and warnings the server sent since the last call (`WARNING: ...`), password removed.
    func takeNotices() -> [String] {
        defer { notices.messages.removeAll() }
        return notices.messages.map(address.redact)
    }

    /// Whether a command got no answer in time (the server went silent): not worth a retry.
    var timedOut: Bool { abandoned }

    /// Why the connection broke, as libpq tells it (password removed).
    var failureReason: String { address.redact(Self.message(PQerrorMessage(handle))) }

    /// The socket to `poll` for notifications (it can change after a reconnect).
    var socket: Int32 { PQsocket(handle) }

    /// Runs fixed SQL without parameters (`BEGIN`, `COMMIT`, `LISTEN`, the schema).
    func run(_ sql: String) throws {
        try LibpqGate.shared.call(server: address.description) { try runUngated(sql) }
    }

    private func runUngated(_ sql: String) throws {
        let result = PQsendQuery(handle, sql) == 1 ? try awaitResult() : nil
        defer { PQclear(result) }
        try check(result)
    }

    /// Runs `sql` as a prepared statement with `parameters` bound as text (nil is NULL); returns
    /// the rows as text (nil for NULL).
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws -> [[String?]] {
        try query(sql, parameters) { result in
            (0..<result.rowCount).map { row in (0..<result.columnCount).map { column in result.text(row, column) } }
        }
    }

    /// Runs `sql` like ``query(_:_:)`` and hands `read` the result in place, freed afterwards:
    /// for results too large to copy into arrays of strings first.
    ///
    /// ```swift
    /// let revisions = try connection.query("SELECT revision FROM storedkit.namespaces", []) { result in
    ///     (0..<result.rowCount).compactMap { result.integer($0, 0) }
    /// }  //=> [7, 12]
    /// ```
    func query<R>(_ sql: String, _ parameters: [String?], reading read: (PostgresResult) throws -> R) throws -> R {
        try LibpqGate.shared.call(server: address.description) { try queryUngated(sql, parameters, reading: read) }
    }

    private func queryUngated<R>(
        _ sql: String, _ parameters: [String?], reading read: (PostgresResult) throws -> R
    ) throws -> R {
        let name = try prepare(sql, parameterCount: parameters.count)
        let sent = Self.withCStrings(parameters) { values in
            PQsendQueryPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
        }
        let result = sent == 1 ? try awaitResult() : nil
        defer { PQclear(result) }
        try check(result)
        guard let rows = try PostgresResult.reading(result, read) else {
            throw StoreError.postgres(server: address.description, code: "08006", message: "the server sent no result")
        }
        return rows
    }

    /// Finds, without a round trip, a connection the server closed while it sat idle (an
    /// administrator's kill, a restart): its socket is readable, and reading it tells libpq.
    /// Throws then, as a command on it would, so the pool replaces it before anything is sent.
    func checkStillOpen() throws {
        try LibpqGate.shared.call(server: address.description) { try checkStillOpenUngated() }
    }

    private func checkStillOpenUngated() throws {
        // The server's last words come first, its end of the stream after: libpq learns of the
        // close only when a read returns nothing, so read while something is there (a few times).
        for _ in 0..<4 where isAlive && SocketWait.waitUntilReadable(socket: PQsocket(handle), timeoutMilliseconds: 0) {
            guard PQconsumeInput(handle) == 1 else { break }
        }
        guard isAlive else { throw StoreError.postgres(server: address.description, code: "08006", message: failureReason) }
    }

    /// Rolls back a failed transaction so the connection can be used again; never throws.
    func rollback() {
        guard isAlive, PQtransactionStatus(handle) != PQTRANS_IDLE else { return }
        try? run("ROLLBACK")
    }

    /// Reads what arrived on the socket without blocking; false when the connection broke.
    func consumeInput() -> Bool {
        guard LibpqGate.shared.enter() else { return false }
        defer { LibpqGate.shared.leave() }
        return PQconsumeInput(handle) == 1 && PQstatus(handle) == CONNECTION_OK
    }

    /// Takes the notifications libpq has received so far (also while running other commands).
    func takeNotifications() -> [(channel: String, payload: String)] {
        var notifications: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            let channel = String(cString: notification.pointee.relname)
            let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
            notifications.append((channel, payload))
            PQfreemem(notification)
        }
        return notifications
    }

    // MARK: Internals

    private func prepare(_ sql: String, parameterCount: Int) throws -> String {
        if let name = preparedNames[sql] { return name }
        let name = "storedkit_\(preparedNames.count)"
        let result = PQsendPrepare(handle, name, sql, Int32(parameterCount), nil) == 1 ? try awaitResult() : nil
        defer { PQclear(result) }
        try check(result)
        preparedNames[sql] = name
        return name
    }

    /// The result of the command just sent, as `PQexec` gives it (the last one, or the first
    /// error), waiting at most ``commandTimeout``: a server that accepted the command and went
    /// silent (frozen, or cut off behind a proxy) fails it instead of hanging the caller. Nil
    /// when the connection broke; the error is then in `PQerrorMessage`.
    private func awaitResult() throws -> OpaquePointer? {
        let deadline = ContinuousClock.now + commandTimeout
        var kept: OpaquePointer?
        while true {
            while PQisBusy(handle) == 1 {
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else {
                    PQclear(kept)
                    abandoned = true
                    throw StoreError.postgres(
                        server: address.description, code: "08006",
                        message: "the server did not answer within \(commandTimeout)")
                }
                let (seconds, attoseconds) = remaining.components
                let milliseconds = Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 3_600_000))
                _ = SocketWait.waitUntilReadable(socket: PQsocket(handle), timeoutMilliseconds: milliseconds)
                guard PQconsumeInput(handle) == 1 else {
                    PQclear(kept)
                    return nil
                }
            }
            guard let result = PQgetResult(handle) else { return kept }
            if let kept, PQresultStatus(kept) == PGRES_FATAL_ERROR {
                PQclear(result)
            } else {
                PQclear(kept)
                kept = result
            }
        }
    }

    private func check(_ result: OpaquePointer?) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return }
        var code = "08006"
        var message = Self.message(PQerrorMessage(handle))
        if let result {
            if let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))) { code = String(cString: state) }
            if let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))) { message = String(cString: primary) }
        }
        throw StoreError.postgres(server: address.description, code: code, message: address.redact(message))
    }

    /// libpq gives no SQLSTATE for a failed connection: tell the causes a user must act on
    /// differently apart by the server's message, so the advice fits.
    private static func connectionFailureCode(_ message: String) -> String {
        // libpq gives no SQLSTATE for a refused connection: the server's FATAL message tells the cause.
        if message.contains("authentication failed") || message.contains("no password supplied") { return "28P01" }
        if message.contains("does not exist") && message.contains("database \"") { return "3D000" }
        if message.contains("the database system is") { return "57P03" }
        if message.contains("too many clients") || message.contains("remaining connection slots")
            || message.contains("too many connections")
        {
            return "53300"
        }
        if message.contains("no pg_hba.conf entry") || message.contains("is not permitted to log in")
            || (message.contains("role \"") && message.contains("does not exist"))
        {
            return "28000"
        }
        if message.contains("permission denied for database") { return "42501" }
        return "08001"
    }

    /// Connects without blocking in libpq (`PQconnectPoll`), waiting on the socket in slices of
    /// 50 ms: a connection attempt to a silent server ends when `limit` passes, or within a slice
    /// once the process exits (``LibpqGate/close()`` waits for it), not after libpq's whole
    /// `connect_timeout`. Nil when libpq could not allocate one; a failed one is returned for its message.
    private static func connect(
        _ keywords: UnsafePointer<UnsafePointer<CChar>?>, _ values: UnsafePointer<UnsafePointer<CChar>?>,
        within limit: Duration, server: String
    ) throws -> OpaquePointer? {
        guard let connection = PQconnectStartParams(keywords, values, 1) else { return nil }
        guard PQstatus(connection) != CONNECTION_BAD else { return connection }
        let deadline = ContinuousClock.now + limit
        var polling = PGRES_POLLING_WRITING
        while polling != PGRES_POLLING_OK && polling != PGRES_POLLING_FAILED {
            if LibpqGate.shared.isClosed || ContinuousClock.now >= deadline {
                PQfinish(connection)
                let message =
                    LibpqGate.shared.isClosed
                    ? "the process is exiting: no new server calls" : "timeout expired after \(limit) connecting"
                throw StoreError.postgres(server: server, code: "08001", message: message)
            }
            let events = polling == PGRES_POLLING_READING ? POLLIN : POLLOUT
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(events), revents: 0)
            if poll(&descriptor, 1, 50) != 0 { polling = PQconnectPoll(connection) }
        }
        return connection
    }

    /// `timeout` rounded up to whole seconds (libpq's unit), at least one.
    static func wholeSeconds(_ timeout: Duration) -> Int {
        let (seconds, attoseconds) = timeout.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        let message = text.map { String(cString: $0) } ?? ""
        var lines = message.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }
        lines = lines.map { line in line.hasSuffix(".") ? line.dropLast() : line }.filter { !$0.isEmpty }
        return lines.isEmpty ? "the connection failed" : lines.joined(separator: "; ")
    }

    /// Calls `body` with C strings for `strings` (nil stays a null pointer), freed afterwards.
    /// Callers reject U+0000 first: C strings end at the first one.
    private static func withCStrings<R>(
        _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) throws -> R
    ) rethrows -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { string in
            string.map { string in
                let bytes = string.utf8CString
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
                _ = UnsafeMutableBufferPointer(start: copy, count: bytes.count).initialize(from: bytes)
                return copy
            }
        }
        defer { copies.forEach { $0?.deallocate() } }
        let pointers = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: copies.count + 1)
        defer { pointers.deallocate() }
        for (index, copy) in copies.enumerated() { (pointers + index).initialize(to: copy.map { UnsafePointer($0) }) }
        (pointers + copies.count).initialize(to: nil)
        return try body(pointers)
    }
}

/// Where one connection's notice receiver puts what the server says; touched only by the thread using the connection.
private final class NoticeInbox {
    var messages: [String] = []
}
