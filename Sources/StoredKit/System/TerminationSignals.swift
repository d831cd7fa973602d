import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM, ended through the same ``ExitSequence`` as a normal exit: the open
/// stores are flushed and every backend shut down before the process ends, with the shell's
/// status for a signal, 128 + its number (130 for SIGINT, 143 for SIGTERM). For the package's
/// tools (`stored`, `stored-demo`, `stored-bench`, `stored-torture`).
///
/// The signals are blocked in the calling thread (call it first in `main`, before any thread
/// starts, so every thread inherits the block) and taken by one thread in `sigwait`: no code runs
/// in a signal handler, and a mask inherited blocked (as test runners' children get it) changes
/// nothing.
///
/// ```swift
/// TerminationSignals.endThroughExitSequence()
/// ```
package enum TerminationSignals {
    /// The status a process ended by SIGINT exits with.
    package static let interruptedStatus: Int32 = 128 + SIGINT
    /// The status a process ended by SIGTERM exits with.
    package static let terminatedStatus: Int32 = 128 + SIGTERM

    /// Takes SIGINT and SIGTERM from now on; see the type.
    package static func endThroughExitSequence() {
        var blocked = terminationSet()
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        let waiter = Thread {
            var signals = terminationSet()
            var received: Int32 = 0
            while sigwait(&signals, &received) != 0 {}
            ExitSequence.run()
            fflush(nil)
            // Not exit(): the main thread may still be running; the libraries' destructors and
            // Swift's own teardown must not run under it. The sequence left nothing to tear down.
            _exit(128 + received)
        }
        waiter.name = "StoredKit.TerminationSignals"
        waiter.start()
    }

    private static func terminationSet() -> sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        return signals
    }
}
