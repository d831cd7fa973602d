import Foundation
import StoredKit
import Synchronization

/// The one listener connection of a process to a server, owned by one dedicated thread (never
/// Swift's cooperative pool, which has as many threads as cores): it `LISTEN`s on
/// ``PostgresSchema/channel``, sleeps in `poll` on the socket and an `eventfd` (``SocketWait``),
/// and hands each namespace's handlers the revision of every notification that names the
/// namespace's token (``learn(token:for:)``). Any role that may connect can NOTIFY on the channel,
/// so what it hands on is a hint to look, never data; a notification whose token no namespace
/// here knows goes to the namespaces whose token is not known yet (never written when last read).
///
/// NOTIFY is lost while disconnected, so after every (re)connect it LISTENs first and then tells
/// every handler ``Signal/live(afterOutage:)``: "catch up from your last revision". A lost
/// connection is told as ``Signal/lost(reason:)`` once, and recorded in the server's
/// ``PostgresOutage`` until the listener is back. Reconnects back off exponentially with
/// jitter (at most 2 s apart), so a fleet does not return all at once after a server restart.
///
/// ```swift
/// let id = listener.subscribe("user:42") { signal in print("user:42:", signal) }
/// listener.unsubscribe("user:42", id)
/// ```
final class PostgresListener: Sendable {
    /// What the listener thread tells a namespace's handlers.
    enum Signal: Sendable {
        /// A notification says someone committed `revision` to the namespace (a `<revision> <token>`
        /// payload): sent by whoever may connect, so only a reason to read.
        case committed(Int64)
        /// LISTENing (again): anything may have changed since the handler last looked. After a
        /// lost connection `afterOutage` is true: pending writes may be retried.
        case live(afterOutage: Bool)
        /// The connection broke or cannot be opened; told once per outage.
        case lost(reason: String)
    }

    /// Called on the listener thread.
    typealias Handler = @Sendable (Signal) -> Void

    /// The longest wait between two reconnection attempts, in seconds.
    static let maximumBackoff = 2.0

    private let address: PostgresAddress
    private let outage: PostgresOutage
    private let signal: SocketWait
    private let state = Mutex(State())

    private struct State {
        var handlers: [String: [UInt64: Handler]] = [:]
        /// The namespace each known notification token names, and the reverse.
        var namespaceOfToken: [String: String] = [:]
        var tokenOfNamespace: [String: String] = [:]
        var nextID: UInt64 = 0
        var stopped = false
        var live = false
        /// How many times it went live: see ``liveEpoch``.
        var epoch: UInt64 = 0
        var lastError: StoreError?
        /// Lost after having been live, and not told back yet.
        var inOutage = false
        /// The pool could not reach the server: drop the connection and reconnect.
        var recheck: String?
    }

    init(address: PostgresAddress, outage: PostgresOutage) throws {
        self.address = address
        self.outage = outage
        signal = try SocketWait()
        let thread = Thread { [self] in run() }
        thread.name = "StoredKit.PostgresListener"
        thread.start()
    }

    /// Registers `handler` for `namespace`'s commits; returns the id to unsubscribe with.
    func subscribe(_ namespace: String, _ handler: @escaping Handler) -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            state.handlers[namespace, default: [:]][state.nextID] = handler
            return state.nextID
        }
    }

    /// Removes a handler registered by ``subscribe(_:_:)``.
    func unsubscribe(_ namespace: String, _ id: UInt64) {
        state.withLock { state in
            state.handlers[namespace]?[id] = nil
            if state.handlers[namespace]?.isEmpty == true {
                state.handlers[namespace] = nil
                if let token = state.tokenOfNamespace.removeValue(forKey: namespace) {
                    state.namespaceOfToken[token] = nil
                }
            }
        }
    }

    /// Records that notifications naming `token` are about `namespace` (its row's `notify_token`,
    /// as a read found it), replacing the token it had.
    ///
    /// ```swift
    /// listener.learn(token: "9f2c…", for: "user:42")
    /// ```
    func learn(token: String, for namespace: String) {
        state.withLock { state in
            guard state.handlers[namespace] != nil, state.tokenOfNamespace[namespace] != token else { return }
            if let old = state.tokenOfNamespace.updateValue(token, forKey: namespace) { state.namespaceOfToken[old] = nil }
            state.namespaceOfToken[token] = namespace
        }
    }

    /// How many times the listener went live, while it is LISTENing (nil while not): the same
    /// number at two moments means it stayed connected in between, as far as it knows (a cut it
    /// learns of later is followed by ``Signal/live(afterOutage:)`` once it is back).
    ///
    /// ```swift
    /// listener.liveEpoch  //=> 1
    /// ```
    var liveEpoch: UInt64? {
        state.withLock { $0.live ? $0.epoch : nil }
    }

    /// Waits until the listener is LISTENing (at most `timeout`); throws why it is not.
    func waitUntilLive(timeout: Duration = .seconds(5)) throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (live, error) = state.withLock { ($0.live, $0.lastError) }
            if live { return }
            if ContinuousClock.now >= deadline {
                throw error
                    ?? StoreError.postgres(
                        server: address.description, code: "08001", message: "the listener did not connect in time")
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    /// Makes the thread drop its connection and connect again: the pool found the server
    /// unreachable, which an idle listener cannot tell from a quiet server.
    func recheck(reason: String) {
        state.withLock { $0.recheck = reason }
        signal.wake()
    }

    /// Ends the thread (it closes its connection).
    func stop() {
        state.withLock { $0.stopped = true }
        signal.wake()
    }

    // MARK: The thread

    private func run() {
        var connection: PostgresConnection?
        var backoff = 0.05
        // Once the process is exiting, libpq is closed: nothing more to listen for.
        while !state.withLock({ $0.stopped }) && !LibpqGate.shared.isClosed {
            guard let current = connection else {
                do {
                    connection = try connect()
                    backoff = 0.05
                } catch {
                    let delay = backoff * Double.random(in: 0.5...1.5)
                    backoff = min(backoff * 2, Self.maximumBackoff)
                    state.withLock { $0.lastError = error as? StoreError }
                    lose(reason: Self.reason(error))
                    _ = signal.wait(socket: -1, timeoutMilliseconds: Int32(delay * 1000))
                }
                continue
            }
            // libpq may have absorbed notifications while running the last command.
            deliver(current.takeNotifications())
            let outcome = signal.wait(socket: current.socket, timeoutMilliseconds: -1)
            if let reason = takeRecheck() {
                connection = replace(brokenBecause: reason)
                continue
            }
            guard outcome.readable else { continue }
            guard current.consumeInput() else {
                connection = replace(brokenBecause: current.failureReason)
                continue
            }
            deliver(current.takeNotifications())
        }
    }

    /// Connects and LISTENs, then tells every namespace to catch up.
    private func connect() throws -> PostgresConnection {
        try goLive(PostgresConnection(address: address))
    }

    /// Replaces a connection that broke (or that the pool asked to check). When a fresh one opens
    /// at once, the server still answers (an administrator's kill, a restarted pooler): every
    /// namespace hears that the connection was lost and is back, and retries what is pending, but
    /// the server is never recorded as down, so no flush fails meanwhile. Otherwise the outage is
    /// recorded and the loop reconnects with backoff.
    private func replace(brokenBecause reason: String) -> PostgresConnection? {
        if let fresh = try? PostgresConnection(address: address) {
            lose(reason: reason, recordingOutage: false)
            if let live = try? goLive(fresh) { return live }
        }
        lose(reason: reason)
        return nil
    }

    /// LISTENs on `connection`, ends any recorded outage and tells every namespace to catch up.
    private func goLive(_ connection: PostgresConnection) throws -> PostgresConnection {
        try connection.run("LISTEN \(PostgresSchema.channel)")
        outage.end()
        let (handlers, afterOutage) = state.withLock { state in
            state.live = true
            state.epoch += 1
            state.lastError = nil
            state.recheck = nil
            defer { state.inOutage = false }
            return (state.handlers.values.flatMap(\.values), state.inOutage)
        }
        for handler in handlers { handler(.live(afterOutage: afterOutage)) }
        return connection
    }

    /// The reason the pool asked for a reconnection, once.
    private func takeRecheck() -> String? {
        state.withLock { state in
            defer { state.recheck = nil }
            return state.recheck
        }
    }

    /// Records the outage (unless a replacement is already open); the first loss after being live
    /// is told to every namespace.
    private func lose(reason: String, recordingOutage: Bool = true) {
        if recordingOutage { outage.begin(reason: reason, byListener: true) }
        let handlers = state.withLock { state -> [Handler] in
            // A first connection that fails is the open's to report; only a loss is told.
            guard state.live else { return [] }
            state.live = false
            state.inOutage = true
            return state.handlers.values.flatMap(\.values)
        }
        for handler in handlers { handler(.lost(reason: reason)) }
    }

    /// What a failed connection attempt says, without the server's name (events name it already).
    private static func reason(_ error: any Error) -> String {
        if case .postgres(_, _, let message)? = error as? StoreError { return message }
        return "\(error)"
    }

    /// Payloads are `<revision> <token>`; anything else is skipped. A token no namespace here
    /// knows goes to every namespace whose token is not known yet: one written for the first time
    /// since it was read says so only by its new token.
    private func deliver(_ notifications: [(channel: String, payload: String)]) {
        for notification in notifications where notification.channel == PostgresSchema.channel {
            let payload = notification.payload
            guard let space = payload.firstIndex(of: " "), let revision = Int64(payload[..<space]) else { continue }
            let token = String(payload[payload.index(after: space)...])
            let handlers = state.withLock { state -> [Handler] in
                if let namespace = state.namespaceOfToken[token] {
                    return state.handlers[namespace].map { Array($0.values) } ?? []
                }
                return state.handlers.filter { state.tokenOfNamespace[$0.key] == nil }.flatMap(\.value.values)
            }
            for handler in handlers { handler(.committed(revision)) }
        }
    }
}
