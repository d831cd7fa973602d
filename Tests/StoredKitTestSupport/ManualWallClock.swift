import Synchronization

/// A wall clock a test sets and moves, in milliseconds since 1970: what a ``HybridLogicalClock``
/// reads instead of the system's, so a test can put a machine a day ahead or set its clock back.
///
/// ```swift
/// let wall = ManualWallClock(1_780_000_000_000)
/// let clock = HybridLogicalClock(physical: wall.read)
/// wall.advance(by: 86_400_000)  // a day later
/// ```
public final class ManualWallClock: Sendable {
    private let now: Atomic<Int64>

    /// A clock that reads `start` until it is moved.
    ///
    /// ```swift
    /// let wall = ManualWallClock(1_780_000_000_000)
    /// ```
    public init(_ start: Int64) { now = Atomic(start) }

    /// The time it reads now.
    ///
    /// ```swift
    /// wall.milliseconds  //=> 1780000000000
    /// ```
    public var milliseconds: Int64 { now.load(ordering: .relaxed) }

    /// What a ``HybridLogicalClock`` takes as its physical clock.
    ///
    /// ```swift
    /// HybridLogicalClock(physical: wall.read)
    /// ```
    public var read: @Sendable () -> Int64 { { [self] in milliseconds } }

    /// Sets the time it reads, also back.
    ///
    /// ```swift
    /// wall.set(1_779_913_600_000)  // a day behind
    /// ```
    public func set(_ milliseconds: Int64) { now.store(milliseconds, ordering: .relaxed) }

    /// Moves it by `milliseconds` (negative: back).
    ///
    /// ```swift
    /// wall.advance(by: 3_600_000)  // an hour later
    /// ```
    public func advance(by milliseconds: Int64) { now.add(milliseconds, ordering: .relaxed) }
}
