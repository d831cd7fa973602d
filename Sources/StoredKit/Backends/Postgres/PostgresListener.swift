import Foundation
import Synchronization

/// The one listener connection of a process to a server, owned by one dedicated thread (never
/// Swift's cooperative pool, which has as many threads as cores): it `LISTEN`s on
/// ``PostgresSchema/channel``, sleeps in `poll` on the socket and an `eventfd` (``SocketWait``),
/// and hands each namespace's handlers the revision of every commit to it.
///
/// NOTIFY is lost while disconnected, so after every (re)connect it LISTENs first and then calls
/// every handler with `nil`: "catch up from your last revision". Reconnects back off
/// exponentially with jitter, so a fleet does not return all at once after a server restart.
///
/// ```swift
/// let id = listener.subscribe("user:42") { revision in print("user:42 is at", revision ?? "?") }
/// listener.unsubscribe("user:42", id)
/// ```
final class PostgresListener: Sendable {
    /// Called on the listener thread with a committed revision, or nil after a (re)connect.
    typealias Handler = @Sendable (_ revision: Int64?) -> Void

    private let address: PostgresAddress
    private let signal: SocketWait
    private let state = Mutex(State())

    private struct State {
        var handlers: [String: [UInt64: Handler]] = [:]
        var nextID: UInt64 = 0
        var stopped = false
        var live = false
        var lastError: StoreError?
    }

    init(address: PostgresAddress) throws {
        self.address = address
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
            if state.handlers[namespace]?.isEmpty == true { state.handlers[namespace] = nil }
        }
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

    /// Ends the thread (it closes its connection).
    func stop() {
        state.withLock { $0.stopped = true }
        signal.wake()
    }

    // MARK: The thread

    private func run() {
        var connection: PostgresConnection?
        var backoff = 0.05
        while !state.withLock({ $0.stopped }) {
            guard let current = connection else {
                do {
                    connection = try connect()
                    backoff = 0.05
                } catch {
                    let delay = backoff * Double.random(in: 0.5...1.5)
                    backoff = min(backoff * 2, 5)
                    state.withLock { $0.lastError = error as? StoreError }
                    _ = signal.wait(socket: -1, timeoutMilliseconds: Int32(delay * 1000))
                }
                continue
            }
            // libpq may have absorbed notifications while running the last command.
            deliver(current.takeNotifications())
            let outcome = signal.wait(socket: current.socket, timeoutMilliseconds: -1)
            guard outcome.readable else { continue }
            guard current.consumeInput() else {
                state.withLock { $0.live = false }
                connection = nil
                continue
            }
            deliver(current.takeNotifications())
        }
    }

    /// Connects and LISTENs, then tells every namespace to catch up.
    private func connect() throws -> PostgresConnection {
        let connection = try PostgresConnection(address: address)
        try connection.run("LISTEN \(PostgresSchema.channel)")
        let handlers = state.withLock { state in
            state.live = true
            state.lastError = nil
            return state.handlers.values.flatMap(\.values)
        }
        for handler in handlers { handler(nil) }
        return connection
    }

    /// Payloads are `<revision> <namespace>`.
    private func deliver(_ notifications: [(channel: String, payload: String)]) {
        for notification in notifications where notification.channel == PostgresSchema.channel {
            guard let space = notification.payload.firstIndex(of: " "),
                let revision = Int64(notification.payload[..<space])
            else { continue }
            let namespace = String(notification.payload[notification.payload.index(after: space)...])
            let handlers = state.withLock { $0.handlers[namespace].map { Array($0.values) } ?? [] }
            for handler in handlers { handler(revision) }
        }
    }
}
