import Foundation
import Synchronization

/// A hybrid logical clock (Kulkarni, Demirbas et al., "Logical Physical Clocks", 2014): it stamps
/// each local change with a ``HybridTimestamp`` that is never below the wall clock, and moves past
/// every timestamp it is shown, so that a change made after seeing another is stamped above it.
///
/// It never goes back: a wall clock set back (by NTP, by hand, by a restored VM) leaves it where
/// it was, and the counter orders changes until the wall clock catches up. A replica persists
/// ``last`` and starts its next clock from it, so restarts keep the order too.
///
/// ```swift
/// let clock = HybridLogicalClock(last: .zero)
/// let mine = clock.tick()                      // a local set
/// let theirs = HybridTimestamp(milliseconds: mine.milliseconds + 86_400_000, counter: 7)
/// clock.witness(theirs)                        // a stamp read from the server, a day ahead
/// clock.tick() > theirs                        //=> true: this change saw theirs
/// ```
public final class HybridLogicalClock: Sendable {
    private let state: Mutex<HybridTimestamp>
    private let physical: @Sendable () -> Int64

    /// A clock that resumes after `last` (what an earlier run persisted), reading the wall clock
    /// through `physical` (milliseconds since 1970; tests pass a clock of their own).
    ///
    /// ```swift
    /// let clock = HybridLogicalClock(last: persistedStamp)
    /// ```
    public init(last: HybridTimestamp = .zero, physical: @escaping @Sendable () -> Int64 = HybridLogicalClock.wallClock) {
        state = Mutex(last)
        self.physical = physical
    }

    /// The system's wall clock in milliseconds since 1970 (`CLOCK_REALTIME`, which `faketime` moves).
    ///
    /// ```swift
    /// HybridLogicalClock.wallClock()  //=> 1780000000000
    /// ```
    public static let wallClock: @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down)) }

    /// The newest timestamp this clock has handed out or witnessed: what a replica persists.
    ///
    /// ```swift
    /// clock.last  //=> 1780000000000.3
    /// ```
    public var last: HybridTimestamp { state.withLock { $0 } }

    /// Stamps a local event (a `set` or a removal): above every timestamp before it.
    ///
    /// ```swift
    /// let stamp = clock.tick()
    /// ```
    public func tick() -> HybridTimestamp {
        let now = physical()
        return state.withLock { last in
            if now > last.milliseconds {
                last = HybridTimestamp(milliseconds: now, counter: 0)
            } else {
                Self.advanceCounter(&last)
            }
            return last
        }
    }

    /// Moves past `remote`, a timestamp read from another replica (the paper's receive event), so
    /// that every later ``tick()`` is above it; returns the clock's new ``last``.
    ///
    /// ```swift
    /// clock.witness(stampReadFromTheServer)
    /// ```
    @discardableResult
    public func witness(_ remote: HybridTimestamp) -> HybridTimestamp {
        let now = physical()
        return state.withLock { last in
            let top = max(last.milliseconds, remote.milliseconds, now)
            switch (top == last.milliseconds, top == remote.milliseconds) {
            case (true, true): last.counter = max(last.counter, remote.counter)
            case (true, false): break
            case (false, true): last = remote
            case (false, false):
                last = HybridTimestamp(milliseconds: top, counter: 0)  // the wall clock is ahead of both
                return last
            }
            Self.advanceCounter(&last)
            return last
        }
    }

    /// One step of the counter; at its end the clock takes the next millisecond instead of
    /// wrapping, which keeps the order (and is 4 billion events in one millisecond away).
    private static func advanceCounter(_ stamp: inout HybridTimestamp) {
        if stamp.counter == .max {
            stamp = HybridTimestamp(milliseconds: stamp.milliseconds + 1, counter: 0)
        } else {
            stamp.counter += 1
        }
    }
}
