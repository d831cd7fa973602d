import Dispatch
import Foundation
import Synchronization

/// The one ordered end of a process that opened stores: first every open store's pending
/// writes are flushed (all at once, waiting at most ``flushDeadline`` in all), then every
/// backend's shutdown hook runs, in the order they were added. A backend that talks to a server
/// ends its connections there, so once the sequence returns no thread is inside its client
/// library and none can enter it: the libraries' own exit-time teardown (OpenSSL's `atexit`
/// handler, Kerberos' destructors) never races a connection.
///
/// It runs from `atexit`, armed when the first store opens and armed again by a backend after
/// its client library may have registered its own handler (handlers run last-registered-first,
/// so the latest arming runs before that handler); whichever registration comes first runs it,
/// the others find it done. A program may also run it itself before exiting, as the tools do on
/// SIGINT and SIGTERM (`TerminationSignals.endThroughExitSequence()`).
///
/// Deferred writes that have not reached their backend by ``flushDeadline`` (a server that does
/// not answer) are lost, as with a crash: each such store reported
/// ``StoreEvent/commitFailed(_:)`` on its diagnostics.
///
/// ```swift
/// ExitSequence.addShutdownHook { connections.closeForever() }  // a backend, once
/// ExitSequence.arm()  // again, after its client library registered its own exit handler
/// ```
package enum ExitSequence {
    /// The longest the exit waits for the open stores' flushes, in all: the default timeout of a
    /// server backend, so a silent server costs it once.
    package static let flushDeadline: Duration = .seconds(5)
    /// How long the exit waits, after the shutdown hooks, for flushes the hooks made fail fast.
    static let stragglerDeadline: Duration = .seconds(1)

    private enum Phase {
        case notStarted
        case running(DispatchGroup)
        case done
    }

    private struct State {
        var phase = Phase.notStarted
        var hooks: [@Sendable () -> Void] = []
        var timings: Timings?
    }

    private static let state = Mutex(State())

    /// Registers the sequence with `atexit` (again). Call it after a library your backend uses
    /// may have registered an exit handler of its own, so the sequence runs before that handler.
    ///
    /// ```swift
    /// ExitSequence.arm()
    /// ```
    package static func arm() {
        atexit { ExitSequence.run() }
    }

    /// Adds `hook`, run once at exit after every store's flush: it must end the backend's
    /// connections and return only when no thread uses its client library, nor can start to.
    ///
    /// ```swift
    /// ExitSequence.addShutdownHook { LibpqGate.shared.close() }
    /// ```
    package static func addShutdownHook(_ hook: @escaping @Sendable () -> Void) {
        state.withLock { $0.hooks.append(hook) }
    }

    /// Runs the sequence now, once; a later or concurrent call waits until it has ended.
    ///
    /// ```swift
    /// ExitSequence.run()
    /// exit(0)
    /// ```
    package static func run() {
        let mine = DispatchGroup()
        mine.enter()
        defer { mine.leave() }
        let earlier: DispatchGroup? = state.withLock { state in
            guard case .notStarted = state.phase else {
                if case .running(let group) = state.phase { return group }
                return mine  // done: nothing to wait for (mine is left on return)
            }
            state.phase = .running(mine)
            return nil
        }
        if let earlier {
            if earlier !== mine { earlier.wait() }
            return
        }
        let clock = ContinuousClock()
        let started = clock.now
        let flushes = StoreRegistry.shared.flushAll(within: flushDeadline)
        let flushed = clock.now
        for hook in state.withLock({ $0.hooks }) { hook() }
        let hooked = clock.now
        _ = flushes.wait(timeout: .now() + stragglerDeadline.dispatchInterval)
        let timings = Timings(flush: flushed - started, hooks: hooked - flushed, stragglers: clock.now - hooked)
        state.withLock {
            $0.phase = .done
            $0.timings = timings
        }
    }

    /// How long each step of the sequence took, once it ran: what a test of the exit bound reads
    /// from inside the exiting process, where no scheduling of the test's own threads counts.
    package struct Timings: Sendable, CustomStringConvertible {
        /// Step 1: every store's flush, bounded by ``flushDeadline``.
        package let flush: Duration
        /// Step 2: the shutdown hooks.
        package let hooks: Duration
        /// Step 3: the wait for flushes the hooks made fail fast, bounded by ``stragglerDeadline``.
        package let stragglers: Duration
        /// The whole sequence.
        package var total: Duration { flush + hooks + stragglers }

        package var description: String {
            "flush=\(flush) hooks=\(hooks) stragglers=\(stragglers) total=\(total)"
        }
    }

    /// The steps' durations once the sequence has run (nil before).
    ///
    /// ```swift
    /// ExitSequence.timings?.total  //=> 5.02 seconds, for stores on a silent server
    /// ```
    package static var timings: Timings? { state.withLock { $0.timings } }
}
