/// One measured quantity: per-round samples reduced to a median, a spread and, for latencies,
/// percentiles. Lower is better for time and bytes; higher for rates.
///
/// ```swift
/// let figure = Figure(kind: .time, samples: [3.0e-9, 3.1e-9, 3.3e-9], operationsPerRound: 1_000_000)
/// figure.median  //=> 3.1e-9
/// figure.spread  //=> 0.032 (half the interquartile range, relative to the median)
/// ```
struct Figure: Codable, Sendable {
    /// What the numbers are.
    enum Kind: String, Codable, Sendable {
        /// Seconds per operation.
        case time
        /// Bytes (peak memory).
        case bytes
        /// Operations per second.
        case rate
        /// A plain count (e.g. commits), never compared.
        case count

        var lowerIsBetter: Bool { self == .time || self == .bytes }
    }

    var kind: Kind
    var median: Double
    var minimum: Double
    var maximum: Double
    /// The 25th and 75th percentiles of the samples: the spread without the odd disturbed round.
    var lowerQuartile: Double
    var upperQuartile: Double
    /// Set for latency figures (one sample per operation).
    var p50: Double?
    var p99: Double?
    /// How many samples the median is taken over (rounds, or operations for latencies).
    var samples: Int
    /// Operations timed together in one sample.
    var operationsPerRound: Int

    /// Half the interquartile range relative to the median: the middle half of the rounds lies
    /// within ±this fraction (about) of the median.
    var spread: Double { median > 0 ? (upperQuartile - lowerQuartile) / 2 / median : 0 }

    /// A figure from per-round samples.
    init(kind: Kind, samples values: [Double], operationsPerRound: Int) {
        let sorted = values.sorted()
        self.kind = kind
        median = Self.percentile(0.5, of: sorted)
        minimum = sorted.first ?? 0
        maximum = sorted.last ?? 0
        lowerQuartile = Self.percentile(0.25, of: sorted)
        upperQuartile = Self.percentile(0.75, of: sorted)
        samples = sorted.count
        self.operationsPerRound = operationsPerRound
    }

    /// A latency figure: one sample per operation, with p50 and p99.
    init(latencies: [Double]) {
        self.init(kind: .time, samples: latencies, operationsPerRound: 1)
        let sorted = latencies.sorted()
        p50 = Self.percentile(0.5, of: sorted)
        p99 = Self.percentile(0.99, of: sorted)
    }

    /// A single value (a count, or a figure measured once).
    init(kind: Kind, value: Double) {
        self.init(kind: kind, samples: [value], operationsPerRound: 1)
    }

    /// How many times better `self` is than `baseline` (>1: StoredKit wins); `nil` when not comparable.
    func ratio(against baseline: Figure) -> Double? {
        guard kind == baseline.kind, kind != .count, median > 0, baseline.median > 0 else { return nil }
        return kind.lowerIsBetter ? baseline.median / median : median / baseline.median
    }

    /// Nearest-rank percentile of already sorted values.
    static func percentile(_ fraction: Double, of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        if fraction == 0.5, sorted.count.isMultiple(of: 2) {
            return (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
