internal import CStoredPostgres  // eventfd, which Swift's Glibc module does not declare
import StoredKit

#if canImport(Glibc)
    import Glibc
#endif

/// A thread's wait on one socket that another thread can interrupt: `poll` on the socket and an
/// `eventfd`, so a listener thread sleeps until data arrives or it is told to look again.
///
/// ```swift
/// let wait = try SocketWait()
/// // listener thread:
/// let outcome = wait.wait(socket: descriptor, timeoutMilliseconds: 1000)  //=> .readable
/// // any other thread:
/// wait.wake()
/// ```
final class SocketWait: Sendable {
    /// What ended a ``wait(socket:timeoutMilliseconds:)``.
    struct Outcome: Equatable {
        /// The socket has data (or an error or hang-up to read).
        var readable = false
        /// ``wake()`` was called since the last wait.
        var woken = false
    }

    private let eventDescriptor: Int32

    init() throws {
        eventDescriptor = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard eventDescriptor >= 0 else {
            throw StoreError.io(path: "eventfd", operation: "create a wake-up signal", errno: errno)
        }
    }

    deinit {
        close(eventDescriptor)
    }

    /// Ends the current or next wait (from any thread).
    func wake() {
        var one: UInt64 = 1
        _ = write(eventDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Sleeps until `socket` is readable (data, an error or a hang-up) or `timeoutMilliseconds`
    /// pass; returns whether it is readable. For a thread waiting on its own socket alone.
    ///
    /// ```swift
    /// SocketWait.waitUntilReadable(socket: descriptor, timeoutMilliseconds: 5000)  //=> true
    /// ```
    static func waitUntilReadable(socket: Int32, timeoutMilliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, timeoutMilliseconds) > 0
    }

    /// Sleeps until `socket` is readable, ``wake()`` is called, or the timeout passes (`-1`: no
    /// timeout). A negative `socket` waits for the wake-up or the timeout only.
    func wait(socket: Int32, timeoutMilliseconds: Int32) -> Outcome {
        var descriptors = [
            pollfd(fd: eventDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
        ]
        let count = poll(&descriptors, socket >= 0 ? 2 : 1, timeoutMilliseconds)
        guard count > 0 else { return Outcome() }
        var outcome = Outcome()
        if descriptors[0].revents != 0 {
            var value: UInt64 = 0
            _ = read(eventDescriptor, &value, MemoryLayout<UInt64>.size)
            outcome.woken = true
        }
        outcome.readable = socket >= 0 && descriptors[1].revents != 0
        return outcome
    }
}
