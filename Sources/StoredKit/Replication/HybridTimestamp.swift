import Foundation

/// A point on a hybrid logical clock (Kulkarni et al., 2014): the wall-clock milliseconds the
/// clock had reached, and a counter that orders events within one millisecond (or while the
/// wall clock lags behind a time heard from elsewhere).
///
/// Timestamps order by milliseconds, then counter. A change stamped after its writer saw another
/// one's stamp is greater than it, whatever either machine's wall clock said, and otherwise the
/// later wall clock wins: this is what the offline replica's last-writer-wins merge compares.
///
/// ```swift
/// let a = HybridTimestamp(milliseconds: 1_700_000_000_000, counter: 0)
/// let b = HybridTimestamp(milliseconds: 1_700_000_000_000, counter: 1)
/// a < b  //=> true
/// b.description  //=> "1700000000000.1"
/// ```
public struct HybridTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Wall-clock time in milliseconds since 1970 (the paper's `l`): never below the physical
    /// clock at the event, possibly above it when a later time was heard from another machine.
    ///
    /// ```swift
    /// HybridTimestamp(milliseconds: 1_700_000_000_000, counter: 2).milliseconds  //=> 1700000000000
    /// ```
    public var milliseconds: Int64
    /// Orders events that share `milliseconds` (the paper's `c`).
    ///
    /// ```swift
    /// HybridTimestamp(milliseconds: 1_700_000_000_000, counter: 2).counter  //=> 2
    /// ```
    public var counter: UInt32

    /// The timestamp before every event: what a replica that never wrote starts from.
    ///
    /// ```swift
    /// HybridTimestamp.zero < HybridTimestamp(milliseconds: 1, counter: 0)  //=> true
    /// ```
    public static let zero = HybridTimestamp(milliseconds: 0, counter: 0)

    /// A timestamp from its two parts, as stored.
    ///
    /// ```swift
    /// let stamp = HybridTimestamp(milliseconds: 1_700_000_000_000, counter: 0)
    /// ```
    public init(milliseconds: Int64, counter: UInt32) {
        self.milliseconds = milliseconds
        self.counter = counter
    }

    /// The time `milliseconds` stands for, for messages and `stored info`.
    ///
    /// ```swift
    /// HybridTimestamp(milliseconds: 1_000, counter: 0).date  //=> 1970-01-01 00:00:01 +0000
    /// ```
    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1_000) }

    /// `milliseconds.counter`, the form messages print.
    ///
    /// ```swift
    /// HybridTimestamp(milliseconds: 1_000, counter: 3).description  //=> "1000.3"
    /// ```
    public var description: String { "\(milliseconds).\(counter)" }

    /// Parses ``description``'s form; nil for anything else (a garbled or hand-edited stamp).
    ///
    /// ```swift
    /// HybridTimestamp("1700000000000.1")?.counter  //=> 1
    /// HybridTimestamp("soon")  //=> nil
    /// ```
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let milliseconds = Int64(parts[0]), milliseconds >= 0, let counter = UInt32(parts[1])
        else { return nil }
        self.init(milliseconds: milliseconds, counter: counter)
    }

    /// Orders by milliseconds, then counter.
    ///
    /// ```swift
    /// HybridTimestamp(milliseconds: 1, counter: 9) < HybridTimestamp(milliseconds: 2, counter: 0)  //=> true
    /// ```
    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        (lhs.milliseconds, lhs.counter) < (rhs.milliseconds, rhs.counter)
    }
}
