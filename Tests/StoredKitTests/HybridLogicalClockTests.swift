import Foundation
import StoredKitTestSupport
import Testing

@testable import StoredKit

/// The clock the offline replica stamps each `set` with: never backwards, and past whatever it saw.
@Suite("Hybrid logical clock")
struct HybridLogicalClockTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_780_000_000_000

    @Test func ticksFollowTheWallClockAndCountWithinAMillisecond() {
        let wall = ManualWallClock(Self.start)
        let clock = HybridLogicalClock(physical: wall.read)
        #expect(clock.tick() == HybridTimestamp(milliseconds: Self.start, counter: 0))
        #expect(clock.tick() == HybridTimestamp(milliseconds: Self.start, counter: 1))
        wall.set(Self.start + 5)
        #expect(clock.tick() == HybridTimestamp(milliseconds: Self.start + 5, counter: 0))
    }

    @Test func aWallClockSetBackNeverMakesAStampGoBack() {
        let wall = ManualWallClock(Self.start)
        let clock = HybridLogicalClock(physical: wall.read)
        let before = clock.tick()
        wall.set(Self.start - Self.day)
        let after = clock.tick()
        #expect(after > before)
        #expect(after.milliseconds == before.milliseconds)
    }

    @Test func aClockResumedFromItsPersistedStampStaysAboveItWhateverTheWallClockSays() {
        let persisted = HybridTimestamp(milliseconds: Self.start, counter: 41)
        let clock = HybridLogicalClock(last: persisted, physical: ManualWallClock(Self.start - Self.day).read)
        #expect(clock.tick() == HybridTimestamp(milliseconds: Self.start, counter: 42))
    }

    @Test func aChangeMadeAfterSeeingAStampFromTheFutureIsStampedAboveIt() {
        let clock = HybridLogicalClock(physical: ManualWallClock(Self.start).read)
        _ = clock.tick()
        let theirs = HybridTimestamp(milliseconds: Self.start + Self.day, counter: 7)
        #expect(clock.witness(theirs) == HybridTimestamp(milliseconds: Self.start + Self.day, counter: 8))
        #expect(clock.tick() > theirs)
    }

    @Test func witnessingAnOlderStampOnlyCounts() {
        let clock = HybridLogicalClock(physical: ManualWallClock(Self.start).read)
        let mine = clock.tick()
        let after = clock.witness(HybridTimestamp(milliseconds: Self.start - Self.day, counter: 9))
        #expect(after == HybridTimestamp(milliseconds: mine.milliseconds, counter: mine.counter + 1))
    }

    @Test func aWallClockAheadOfBothStartsTheCounterOver() {
        let wall = ManualWallClock(Self.start)
        let clock = HybridLogicalClock(physical: wall.read)
        _ = clock.tick()
        wall.set(Self.start + 10)
        let after = clock.witness(HybridTimestamp(milliseconds: Self.start + 3, counter: 5))
        #expect(after == HybridTimestamp(milliseconds: Self.start + 10, counter: 0))
    }

    @Test func aFullCounterMovesToTheNextMillisecondInsteadOfWrapping() {
        let full = HybridTimestamp(milliseconds: Self.start, counter: .max)
        let clock = HybridLogicalClock(last: full, physical: ManualWallClock(Self.start).read)
        let next = clock.tick()
        #expect(next == HybridTimestamp(milliseconds: Self.start + 1, counter: 0))
        #expect(next > full)
    }

    @Test func theTextFormRoundTripsAndGarbleIsRefused() {
        let stamp = HybridTimestamp(milliseconds: Self.start, counter: 3)
        #expect(HybridTimestamp(stamp.description) == stamp)
        for garbled in ["", "1", "1.", ".1", "1.2.3", "-1.0", "1.-1", "x.1", "1.4294967296", "١.٢"] {
            #expect(HybridTimestamp(garbled) == nil, "\(garbled)")
        }
    }

    /// Three machines, one a day ahead and one a day behind, exchange stamps in a random order:
    /// every event is stamped above every event it could have seen (its own earlier ones, and what
    /// the messages it received carried), the guarantee the merge's "made after seeing wins" rests on.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func happenedBeforeImpliesASmallerStampUnderSkewedClocks(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let walls = [ManualWallClock(Self.start), ManualWallClock(Self.start + Self.day), ManualWallClock(Self.start - Self.day)]
        let clocks = walls.map { HybridLogicalClock(physical: $0.read) }
        var newestSeen = [HybridTimestamp](repeating: .zero, count: 3)  // the newest stamp each machine's past holds
        var mailbox: [(to: Int, stamp: HybridTimestamp)] = []
        for step in 0..<3_000 {
            for wall in walls where Bool.random(using: &random) {
                wall.advance(by: Int64.random(in: -3...5, using: &random))  // drifts, also back
            }
            let machine = Int.random(in: 0..<3, using: &random)
            if !mailbox.isEmpty, Bool.random(using: &random) {
                let message = mailbox.remove(at: Int.random(in: 0..<mailbox.count, using: &random))
                let stamp = clocks[message.to].witness(message.stamp)
                #expect(stamp > message.stamp && stamp > newestSeen[message.to], "step \(step)")
                newestSeen[message.to] = stamp
            } else {
                let stamp = clocks[machine].tick()
                #expect(stamp > newestSeen[machine], "step \(step)")
                newestSeen[machine] = stamp
                mailbox.append((to: (machine + Int.random(in: 1...2, using: &random)) % 3, stamp: stamp))
            }
        }
    }
}
