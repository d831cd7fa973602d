import Foundation
import StoredKitTestSupport
import Synchronization
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// Two plain `.postgres(url:namespace:)` stores on one namespace, each on its own machine's clock
/// (a ``HybridLogicalClock`` on a ``ManualWallClock``): of two writes of a key, the one made later
/// wins, whatever order they reach the server in; a change made after seeing another wins even
/// from a machine whose clock is a day behind; a removal is a write like a set; a stamp far ahead
/// of the server's clock is clamped and reported. The loser's store shows the winner and hears
/// ``StoreEvent/lostToLaterWrite(key:winner:)``.
@Suite(
    "PostgreSQL plain stores: the change made last wins",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresLastWriteWinsTests {
    static let hour: Int64 = 3_600_000
    static let day = 24 * hour

    /// The server's clock now (the test server runs on this machine).
    static var serverNow: Int64 { Int64(Date().timeIntervalSince1970 * 1_000) }

    /// A machine: its wall clock, its backend on that clock, and a switch that makes its commits
    /// fail as an unreachable server does (the store keeps the writes pending, stamped when made).
    final class Machine: Backend {
        let wall: ManualWallClock
        let postgres: PostgresBackend
        let unreachable = Atomic(false)

        init(namespace: String, wall: Int64, maximumClockSkew: Duration = .seconds(60)) throws {
            self.wall = ManualWallClock(wall)
            postgres = PostgresBackend(
                url: try PostgresTestServer.requireURL(), namespace: namespace, tombstoneRetention: 7 * 86_400,
                pruneEvery: 100, maximumClockSkew: maximumClockSkew, clock: HybridLogicalClock(physical: self.wall.read))
        }

        var location: String { postgres.location }
        var writeClock: HybridLogicalClock? { postgres.writeClock }
        func load() throws -> BackendSnapshot { try postgres.load() }
        func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
            guard !unreachable.load(ordering: .relaxed) else {
                throw StoreError.postgres(server: location, code: "08006", message: "the test cut the connection")
            }
            return try postgres.commit(changes)
        }
        func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
            try postgres.withExclusiveAccess(body)
        }
        func startWatching(_ onChange: @escaping @Sendable () -> Void) throws { try postgres.startWatching(onChange) }
        func stopWatching() { postgres.stopWatching() }

        /// From now on commits fail, as when the server is away (until ``heal()``).
        func cut() { unreachable.store(true, ordering: .relaxed) }
        func heal() { unreachable.store(false, ordering: .relaxed) }
    }

    /// What the server holds for `key` of `namespace`, read by a store of its own.
    static func serverValue(_ key: String, in namespace: String) throws -> StoredValue? {
        try PostgresBackend(url: try PostgresTestServer.requireURL(), namespace: namespace).load().values[key]
    }

    static func lost(_ store: PreferenceStore, _ key: String) -> [StoredValue?] {
        store.recentEvents.compactMap { event in
            guard case .lostToLaterWrite(key, let winner) = event else { return nil }
            return .some(winner)
        }
    }

    /// A set made at t on a machine that then could not reach the server for a week, committed
    /// after another machine's set made at t + 1 day: the older one loses, alone (one key, the
    /// one-call write) or beside a key nobody else wrote (a transaction), which is committed.
    @Test(arguments: [false, true])
    func aWeekOldWriteCommittedLastLosesToOneMadeSince(beside otherKey: Bool) throws {
        let namespace = PostgresTestServer.freshNamespace("lww-week")
        let t = Self.serverNow - 8 * Self.day
        let laptop = try Machine(namespace: namespace, wall: t)
        let desktop = try Machine(namespace: namespace, wall: t + Self.day)
        let onLaptop = try PreferenceStore(laptop)
        let onDesktop = try PreferenceStore(desktop)

        laptop.cut()
        onLaptop.set("laptop, a week ago", forKey: "theme")
        if otherKey { onLaptop.set(14, forKey: "font-size") }
        #expect(throws: StoreError.self) { try onLaptop.flush() }
        onDesktop.set("desktop, yesterday", forKey: "theme")
        try onDesktop.flush()
        laptop.wall.set(t + 7 * Self.day)  // back online a week later
        laptop.heal()
        try onLaptop.flush()

        #expect(try Self.serverValue("theme", in: namespace) == .string("desktop, yesterday"))
        #expect(onLaptop.value(forKey: "theme", as: String.self) == "desktop, yesterday")
        #expect(Self.lost(onLaptop, "theme") == [.string("desktop, yesterday")])
        if otherKey {
            #expect(try Self.serverValue("font-size", in: namespace) == .int(14))
            #expect(onLaptop.value(forKey: "font-size", as: Int.self) == 14)
        }
        #expect(Self.lost(onDesktop, "theme").isEmpty)
    }

    /// The same order the other way round: the later write committed last wins, as it always did.
    @Test func aNewerWriteCommittedLastWins() throws {
        let namespace = PostgresTestServer.freshNamespace("lww-newer")
        let t = Self.serverNow - 8 * Self.day
        let laptop = try Machine(namespace: namespace, wall: t + Self.day)
        let desktop = try Machine(namespace: namespace, wall: t)
        let onLaptop = try PreferenceStore(laptop)
        let onDesktop = try PreferenceStore(desktop)
        laptop.cut()
        onLaptop.set("laptop, later", forKey: "theme")
        #expect(throws: StoreError.self) { try onLaptop.flush() }
        onDesktop.set("desktop, earlier", forKey: "theme")
        try onDesktop.flush()
        laptop.heal()
        try onLaptop.flush()
        #expect(try Self.serverValue("theme", in: namespace) == .string("laptop, later"))
        #expect(Self.lost(onLaptop, "theme").isEmpty)
    }

    /// A machine whose clock is a day behind reads another's write, then writes the key: its
    /// change was made after seeing the other, and wins, though its wall clock says a day earlier.
    @Test func aChangeMadeAfterSeeingAnotherWinsWithAClockADayBehind() throws {
        let namespace = PostgresTestServer.freshNamespace("lww-seen")
        let correct = try Machine(namespace: namespace, wall: Self.serverNow)
        let behind = try Machine(namespace: namespace, wall: Self.serverNow - Self.day)
        let onCorrect = try PreferenceStore(correct)
        onCorrect.set("first", forKey: "layout")
        try onCorrect.flush()

        let onBehind = try PreferenceStore(behind)  // its open reads "first"
        #expect(onBehind.value(forKey: "layout", as: String.self) == "first")
        onBehind.set("after seeing first", forKey: "layout")
        try onBehind.flush()

        #expect(try Self.serverValue("layout", in: namespace) == .string("after seeing first"))
        #expect(onBehind.value(forKey: "layout", as: String.self) == "after seeing first")
        #expect(Self.lost(onBehind, "layout").isEmpty)
        #expect(try #require(behind.writeClock?.last).milliseconds >= correct.wall.milliseconds)
    }

    /// A removal made after a set wins though it reached the server first; a set made after a
    /// removal wins though the removal reached the server last.
    @Test func aRemovalAndASetMadeLaterWinInBothOrdersOfArrival() throws {
        let namespace = PostgresTestServer.freshNamespace("lww-remove")
        let t = Self.serverNow - 8 * Self.day
        let laptop = try Machine(namespace: namespace, wall: t)
        let desktop = try Machine(namespace: namespace, wall: t)
        let onDesktop = try PreferenceStore(desktop)
        onDesktop.set("kept", forKey: "removed-later")
        onDesktop.set("kept", forKey: "set-later")
        try onDesktop.flush()
        laptop.wall.set(t + Self.hour)
        let onLaptop = try PreferenceStore(laptop)

        // The laptop sets one key and removes the other offline; an hour later the desktop does
        // the opposite, and reaches the server first.
        laptop.cut()
        onLaptop.set("laptop's set", forKey: "removed-later")
        onLaptop.removeValue(forKey: "set-later")
        #expect(throws: StoreError.self) { try onLaptop.flush() }
        desktop.wall.set(t + 2 * Self.hour)
        onDesktop.removeValue(forKey: "removed-later")
        onDesktop.set("desktop's set", forKey: "set-later")
        try onDesktop.flush()
        laptop.heal()
        try onLaptop.flush()

        #expect(try Self.serverValue("removed-later", in: namespace) == nil)
        #expect(try Self.serverValue("set-later", in: namespace) == .string("desktop's set"))
        #expect(onLaptop.value(forKey: "removed-later", as: String.self) == nil)
        #expect(onLaptop.value(forKey: "set-later", as: String.self) == "desktop's set")
        #expect(Self.lost(onLaptop, "removed-later") == [nil])
        #expect(Self.lost(onLaptop, "set-later") == [.string("desktop's set")])
    }

    /// A machine a day ahead has its stamp clamped to the server's clock plus the skew, and hears
    /// so; a write made a few minutes later on a correct clock beats it, instead of losing for a day.
    @Test func aStampADayAheadIsClampedAndReported() throws {
        let namespace = PostgresTestServer.freshNamespace("lww-clamp")
        let ahead = try Machine(namespace: namespace, wall: Self.serverNow + Self.day)
        let onAhead = try PreferenceStore(ahead)
        onAhead.set("from tomorrow", forKey: "volume")
        try onAhead.flush()
        let clamped = onAhead.recentEvents.compactMap { event -> Duration? in
            guard case .stampClamped("volume", _, let skew) = event else { return nil }
            return skew
        }
        #expect(clamped == [.seconds(60)])
        #expect(try Self.serverValue("volume", in: namespace) == .string("from tomorrow"))

        // Five minutes from now by a clock the server allows that far ahead: after the clamped
        // stamp (at most a minute ahead), though a day before the first machine's clock.
        let later = try Machine(namespace: namespace, wall: Self.serverNow + 5 * 60_000, maximumClockSkew: .seconds(600))
        let onLater = try PreferenceStore(later)
        onLater.set("five minutes later", forKey: "volume")
        try onLater.flush()
        #expect(try Self.serverValue("volume", in: namespace) == .string("five minutes later"))
        #expect(Self.lost(onLater, "volume").isEmpty)
    }
}
