import Foundation
import Synchronization

/// Where measured values go so the optimizer cannot prove them unused. A relaxed atomic store is
/// a plain `mov` on x86 and ARM, so it adds almost nothing to a nanosecond-scale loop.
private let blackHoleSink = Atomic<UInt8>(0)

/// Consumes `value` so the work that produced it cannot be deleted by the optimizer.
///
/// ```swift
/// for _ in 0..<n { blackHole(defaults.integer(forKey: "count")) }
/// ```
@inline(never)
func blackHole<T>(_ value: T) {
    withUnsafeBytes(of: value) { bytes in
        blackHoleSink.store(bytes.first ?? 0, ordering: .relaxed)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double` (attosecond precision is far below clock resolution).
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

/// The system-wide monotonic clock in nanoseconds: comparable between processes on one machine,
/// which `ContinuousClock` does not promise.
///
/// ```swift
/// let sent = monotonicNanoseconds()  // in process A; compare with the same call in process B
/// ```
func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// Times operations the same way for StoredKit and for every baseline: warm-up first, then several
/// rounds, reporting the median and the spread (and p50/p99 for latencies).
///
/// ```swift
/// let harness = Harness(quick: false)
/// let figure = harness.measure { n in for _ in 0..<n { blackHole(store[.volume]) } }
/// figure.median  //=> 4.1e-9 (seconds per read)
/// ```
struct Harness {
    /// Timed rounds after the warm-up.
    let rounds: Int
    /// How long one round of a calibrated loop should take.
    let roundTarget: Duration

    init(quick: Bool) {
        rounds = quick ? 5 : 9
        roundTarget = quick ? .milliseconds(8) : .milliseconds(40)
    }

    /// Times a cheap operation in a loop: `body(n)` performs `n` operations. The count per round is
    /// calibrated (which also warms up) so one round lasts about ``roundTarget``.
    func measure(_ body: (Int) throws -> Void) rethrows -> Figure {
        let clock = ContinuousClock()
        var iterations = 1
        while true {
            let elapsed = try clock.measure { try body(iterations) }
            if elapsed >= roundTarget || iterations >= 1 << 30 { break }
            let factor = roundTarget.seconds / max(elapsed.seconds, 1e-9)
            iterations = Int(Double(iterations) * min(max(factor * 1.1, 2), 100))
        }
        var perOperation: [Double] = []
        for _ in 0..<rounds {
            let elapsed = try clock.measure { try body(iterations) }
            perOperation.append(elapsed.seconds / Double(iterations))
        }
        return Figure(kind: .time, samples: perOperation, operationsPerRound: iterations)
    }

    /// Times rounds that each need fresh state: `body` prepares untimed and returns the duration of
    /// its timed part, which covered `operations` operations. The first call is a warm-up.
    func measureRounds(
        rounds requested: Int? = nil,
        warmUp: Bool = true,
        operations: Int,
        _ body: () throws -> Duration
    ) rethrows -> Figure {
        if warmUp { _ = try body() }
        var perOperation: [Double] = []
        for _ in 0..<(requested ?? rounds) {
            perOperation.append(try body().seconds / Double(operations))
        }
        return Figure(kind: .time, samples: perOperation, operationsPerRound: operations)
    }

    /// Collects `count` latencies of `subject` and of `baseline`, alternating one of each, so that
    /// both see the machine in the same state (for operations whose cost drifts, such as `fsync`).
    func measurePairedLatencies(
        count: Int,
        warmUp: Int = 3,
        _ subject: () throws -> Duration,
        against baseline: () throws -> Duration
    ) rethrows -> (subject: Figure, baseline: Figure) {
        for _ in 0..<warmUp {
            _ = try subject()
            _ = try baseline()
        }
        var subjectLatencies: [Double] = []
        var baselineLatencies: [Double] = []
        for _ in 0..<count {
            subjectLatencies.append(try subject().seconds)
            baselineLatencies.append(try baseline().seconds)
        }
        return (Figure(latencies: subjectLatencies), Figure(latencies: baselineLatencies))
    }

    /// Collects `count` single-operation latencies (after `warmUp` untimed ones) for p50 and p99.
    func measureLatencies(count: Int, warmUp: Int = 3, _ body: () throws -> Duration) rethrows -> Figure {
        for _ in 0..<warmUp { _ = try body() }
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        for _ in 0..<count { latencies.append(try body().seconds) }
        return Figure(latencies: latencies)
    }
}
