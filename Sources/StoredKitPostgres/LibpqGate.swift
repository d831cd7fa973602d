import Foundation
import StoredKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Every libpq call that can touch the network, TLS or Kerberos passes through here, so the
/// process's exit can close libpq for good: ``close()`` (a shutdown hook of StoredKit's exit
/// sequence) refuses new calls, cuts every open connection's socket so calls blocked on a server
/// return at once, and waits until none is running. After it, libpq's and OpenSSL's exit-time
/// teardown (`atexit` handlers, library destructors) runs with no connection in use on any
/// thread (listener, command pool, Dispatch work).
///
/// ```swift
/// try LibpqGate.shared.call(server: "postgresql://db/prefs") { PQexec(handle, "SELECT 1") }
/// LibpqGate.shared.close()  // at exit: no libpq call runs after this returns
/// ```
final class LibpqGate: Sendable {
    static let shared = LibpqGate()

    private struct State {
        var closed = false
        var running = 0
        /// The socket of every open connection, to cut at close.
        var sockets: [ObjectIdentifier: Int32] = [:]
        var armedOnce = false
        var armedForTLS = false
    }

    private let state = Mutex(State())

    private init() {
        // Registered and armed first: an exit from now on runs the sequence, whose hook uses
        // `LibpqGate.shared` and so waits until this initialiser has returned.
        ExitSequence.addShutdownHook { LibpqGate.shared.close() }
        ExitSequence.arm()
        // OpenSSL registers an atexit cleanup when it is first initialised, which libpq does in the
        // middle of the first TLS handshake: an exit then ran that cleanup under the handshake
        // (SIGSEGV in stored-torture exit), and an exit during OpenSSL's own initialisation did
        // the same. Initialised here with OPENSSL_INIT_NO_ATEXIT, it registers none (its library
        // destructor cleans up after every atexit handler). libpq links libcrypto, so the symbol
        // is in the process.
        if let initialise = dlsym(nil, "OPENSSL_init_crypto") {
            typealias Initialise = @convention(c) (UInt64, UnsafeRawPointer?) -> Int32
            let noAtExit: UInt64 = 0x0008_0000  // OPENSSL_INIT_NO_ATEXIT (OpenSSL 3)
            _ = unsafeBitCast(initialise, to: Initialise.self)(noAtExit, nil)
        }
    }

    /// Whether the process is exiting: libpq is closed.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Runs `body` (libpq calls) unless the process is exiting; then throws, naming `server`.
    func call<R>(server: String, _ body: () throws -> R) throws -> R {
        guard enter() else {
            throw StoreError.postgres(server: server, code: "08006", message: "the process is exiting: no new server calls")
        }
        defer { leave() }
        return try body()
    }

    /// Counts a call in; false once closed.
    func enter() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.running += 1
            return true
        }
    }

    /// Counts a call out.
    func leave() {
        state.withLock { $0.running -= 1 }
    }

    /// Records `connection`'s socket, to cut at close. The first connection, and the first that
    /// uses TLS, arm the exit sequence again: OpenSSL registers its `atexit` cleanup when libpq
    /// first sets it up, and handlers run last-registered-first, so the sequence must be
    /// registered after it (twice at most, so reconnecting for days adds no handlers).
    func opened(_ connection: ObjectIdentifier, socket: Int32, usesTLS: Bool) {
        let arm = state.withLock { state in
            state.sockets[connection] = socket
            defer {
                state.armedOnce = true
                if usesTLS { state.armedForTLS = true }
            }
            return !state.armedOnce || (usesTLS && !state.armedForTLS)
        }
        if arm { ExitSequence.arm() }
    }

    /// Forgets a connection's socket (before `PQfinish` closes it, so a reused descriptor is never cut).
    func closing(_ connection: ObjectIdentifier) {
        state.withLock { _ = $0.sockets.removeValue(forKey: connection) }
    }

    /// Closes libpq for the rest of the process; returns when no call is running. A call blocked
    /// on its socket returns at once (the socket is shut down); a connection attempt in progress
    /// ends within its `connect_timeout`.
    func close() {
        let sockets = state.withLock { state in
            state.closed = true
            return Array(state.sockets.values)
        }
        for socket in sockets where socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
        while state.withLock({ $0.running }) > 0 { usleep(1000) }
    }
}
