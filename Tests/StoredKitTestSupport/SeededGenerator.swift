/// A small, fast, seeded random number generator (SplitMix64), shared by the tests, the torture
/// tool and the benchmark: the same seed gives the same "random" values on every run, so a
/// failing case can be replayed from the seed it printed.
///
/// ```swift
/// var generator = SeededGenerator(seed: 42)
/// Int.random(in: 0..<100, using: &generator)  //=> the same number on every run
/// ```
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    ///
    /// ```swift
    /// var generator = SeededGenerator(seed: 1)
    /// ```
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    ///
    /// ```swift
    /// generator.next()  //=> 10451216379200822465 for seed 1
    /// ```
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
