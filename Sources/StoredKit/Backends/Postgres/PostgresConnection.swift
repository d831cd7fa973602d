internal import CStoredPostgres

/// One libpq connection, used by one thread at a time (the pool hands it out exclusively, and
/// the listener thread owns its own), hence `@unchecked Sendable`.
///
/// Every statement with values is prepared once per connection and run with bound text
/// parameters, so no namespace, key or value is ever part of SQL text. libpq's notices
/// (`NOTICE: relation exists, skipping`) are swallowed instead of printed to stderr.
///
/// ```swift
/// let connection = try PostgresConnection(address: address)
/// let rows = try connection.query("SELECT revision FROM storedkit_namespaces WHERE namespace = $1", ["user:42"])
/// rows.first?[0]  //=> "7"
/// ```
final class PostgresConnection: @unchecked Sendable {
    /// The oldest server this backend supports (`PQserverVersion` form): Debian 12's PostgreSQL 15.
    static let minimumServerVersion: Int32 = 150_000

    let address: PostgresAddress
    private let handle: OpaquePointer
    private var preparedNames: [String: String] = [:]

    /// Connects (at most 5 s unless the URL sets `connect_timeout`) and checks the server version.
    init(address: PostgresAddress) throws {
        let keywords = ["connect_timeout", "dbname"]
        let values = ["5", address.connectionString]
        let connection = PostgresConnection.withCStrings(keywords) { keywords in
            PostgresConnection.withCStrings(values) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let connection else {
            throw StoreError.postgres(server: address.description, code: "08001", message: "out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = address.redact(PostgresConnection.message(PQerrorMessage(connection)))
            PQfinish(connection)
            throw StoreError.postgres(server: address.description, code: Self.connectionFailureCode(message), message: message)
        }
        PQsetNoticeReceiver(connection, { _, _ in }, nil)
        let version = PQserverVersion(connection)
        guard version >= Self.minimumServerVersion else {
            PQfinish(connection)
            throw StoreError.postgres(
                server: address.description, code: "0A000",
                message: "the server runs PostgreSQL \(version / 10_000).\(version % 10_000); StoredKit needs 15 or newer")
        }
        self.address = address
        self.handle = connection
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection still works and is outside any transaction, so the pool may keep it.
    var isReusable: Bool {
        PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// Whether the connection is still up (as far as libpq knows: it learns of a cut at the next use).
    var isAlive: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The socket to `poll` for notifications (it can change after a reconnect).
    var socket: Int32 { PQsocket(handle) }

    /// Runs fixed SQL without parameters (`BEGIN`, `COMMIT`, `LISTEN`, the schema).
    func run(_ sql: String) throws {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    /// Runs `sql` as a prepared statement with `parameters` bound as text (nil is NULL); returns
    /// the rows as text (nil for NULL).
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws -> [[String?]] {
        let name = try prepare(sql, parameterCount: parameters.count)
        let result = Self.withCStrings(parameters) { values in
            PQexecPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
        }
        defer { PQclear(result) }
        try check(result)
        var rows: [[String?]] = []
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var columns: [String?] = []
            columns.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) == 1 {
                    columns.append(nil)
                } else {
                    columns.append(String(cString: PQgetvalue(result, row, column)))
                }
            }
            rows.append(columns)
        }
        return rows
    }

    /// Rolls back a failed transaction so the connection can be used again; never throws.
    func rollback() {
        guard PQtransactionStatus(handle) != PQTRANS_IDLE else { return }
        PQclear(PQexec(handle, "ROLLBACK"))
    }

    /// Reads what arrived on the socket without blocking; false when the connection broke.
    func consumeInput() -> Bool {
        PQconsumeInput(handle) == 1 && PQstatus(handle) == CONNECTION_OK
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
        let result = PQprepare(handle, name, sql, Int32(parameterCount), nil)
        defer { PQclear(result) }
        try check(result)
        preparedNames[sql] = name
        return name
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
        if message.contains("authentication failed") || message.contains("no password supplied") { return "28P01" }
        if message.contains("does not exist") && message.contains("database") { return "3D000" }
        if message.contains("the database system is") { return "57P03" }
        if message.contains("too many clients") || message.contains("remaining connection slots") { return "53300" }
        return "08001"
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
        _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R
    ) -> R {
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
        return body(pointers)
    }
}
