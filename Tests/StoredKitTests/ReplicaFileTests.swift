import Foundation
import StoredKitTestSupport
import Testing

@testable import StoredKit

/// The offline replica's local half: values, each key's stamp and the outbox, in one SQLite file
/// and one transaction; merges by (stamp, replica id); a copied file takes a new id.
@Suite("Replica file")
struct ReplicaFileTests {
    static let start: Int64 = 1_780_000_000_000
    static let day: Int64 = 86_400_000

    static func replica(_ url: URL, wall: ManualWallClock = ManualWallClock(start)) -> ReplicaFile {
        ReplicaFile(at: url, clock: HybridLogicalClock(physical: wall.read))
    }

    @Test func eachWriteIsQueuedWithTheStampOfItsSet() throws {
        let directory = try TemporaryDirectory()
        let wall = ManualWallClock(Self.start)
        let replica = Self.replica(directory.file("r.sqlite"), wall: wall)
        let store = try PreferenceStore(replica)
        store.set(2, forKey: "volume")
        store.removeValue(forKey: "gone")
        store.set("dark", forKey: "theme")
        store.removeValue(forKey: "theme")
        wall.advance(by: Self.day)  // committed a day later: the stamps say when they were made
        try store.flush()
        let pending = try replica.pendingWrites()
        let me = try replica.currentIdentity().replicaID
        // A removal of a key this replica never held is queued too: a set made earlier elsewhere,
        // not seen here yet, must lose to it.
        #expect(pending.map(\.key).sorted() == ["gone", "theme", "volume"])
        let volume = try #require(pending.first { $0.key == "volume" })
        #expect(volume.value == .int(2) && volume.stamp.milliseconds == Self.start && volume.replicaID == me)
        #expect(pending.first { $0.key == "theme" }?.value == nil)  // its removal is what is sent
        #expect(try replica.pendingSummary().count == 3)
    }

    @Test func acknowledgedWritesLeaveTheOutboxAndALaterWriteIsQueuedAgain() throws {
        let directory = try TemporaryDirectory()
        let replica = Self.replica(directory.file("r.sqlite"))
        let store = try PreferenceStore(replica, durability: .immediate)
        store.set(1, forKey: "a")
        store.set(1, forKey: "b")
        let sent = try replica.pendingWrites()
        store.set(2, forKey: "b")  // written while the upload was in flight
        try replica.acknowledge(through: try #require(sent.map(\.stamp).max()))
        let left = try replica.pendingWrites()
        #expect(left.map(\.key) == ["b"])
        #expect(left.first?.value == .int(2))
    }

    @Test func aLaterProcessOpeningTheFileFindsWhatAnEarlierOneQueued() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("r.sqlite")
        let first = Self.replica(url)
        do {
            let store = try PreferenceStore(first, durability: .immediate)
            store.set("offline", forKey: "a")
        }
        let later = Self.replica(url)
        let store = try PreferenceStore(later)
        #expect(store.value(forKey: "a", as: String.self) == "offline")
        #expect(try later.pendingWrites().map(\.key) == ["a"])
        #expect(try later.currentIdentity() == first.currentIdentity())
    }

    @Test func theFileIsAPlainSQLiteStoreForEveryOtherReader() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("r.sqlite")
        let store = try PreferenceStore(Self.replica(url), durability: .immediate)
        store.set(0.8, forKey: "volume")
        let plain = try PreferenceStore(.sqlite(at: url))
        #expect(plain.value(forKey: "volume", as: Double.self) == 0.8)
    }

    @Test func aNewerRemoteWriteWinsAndTheLocalWriteItBeatsIsDropped() throws {
        let directory = try TemporaryDirectory()
        let replica = Self.replica(directory.file("r.sqlite"))
        let store = try PreferenceStore(replica, durability: .immediate)
        store.set("mine", forKey: "a")
        store.set("mine", forKey: "b")
        let lost = try replica.merge([
            .init(
                key: "a", value: .string("theirs, later"), stamp: .init(milliseconds: Self.start + 1, counter: 0), replicaID: "x"),
            .init(
                key: "b", value: .string("theirs, earlier"), stamp: .init(milliseconds: Self.start - 1, counter: 0),
                replicaID: "x"),
        ])
        #expect(lost == ["a"])
        let values = try replica.load().values
        #expect(values["a"] == .string("theirs, later") && values["b"] == .string("mine"))
        #expect(try replica.pendingWrites().map(\.key) == ["b"])
    }

    @Test func aRemovalIsATombstoneThatAnOlderSetLosesToInEitherOrder() throws {
        let directory = try TemporaryDirectory()
        let replica = Self.replica(directory.file("r.sqlite"))
        _ = try replica.load()
        let set = ReplicaFile.RemoteWrite(
            key: "k", value: .int(1), stamp: .init(milliseconds: Self.start, counter: 0), replicaID: "x")
        let removal = ReplicaFile.RemoteWrite(
            key: "k", value: nil, stamp: .init(milliseconds: Self.start, counter: 1), replicaID: "y")
        let again = ReplicaFile.RemoteWrite(
            key: "k", value: .int(2), stamp: .init(milliseconds: Self.start, counter: 2), replicaID: "x")
        try replica.merge([removal])
        try replica.merge([set])
        #expect(try replica.load().values["k"] == nil)
        try replica.merge([again])
        #expect(try replica.load().values["k"] == .int(2))
        let other = Self.replica(try TemporaryDirectory().file("o.sqlite"))
        try other.merge([set, again, removal])  // one batch, any order
        #expect(try other.load().values["k"] == .int(2))
    }

    @Test func equalStampsAreDecidedByReplicaIDTheSameWayEverywhere() throws {
        let stamp = HybridTimestamp(milliseconds: Self.start, counter: 0)
        let low = ReplicaFile.RemoteWrite(key: "k", value: .string("low"), stamp: stamp, replicaID: "aaaa")
        let high = ReplicaFile.RemoteWrite(key: "k", value: .string("high"), stamp: stamp, replicaID: "bbbb")
        for order in [[low, high], [high, low]] {
            let replica = Self.replica(try TemporaryDirectory().file("r.sqlite"))
            for write in order { try replica.merge([write]) }
            #expect(try replica.load().values["k"] == .string("high"))
        }
    }

    @Test func aLocalWriteStampedBeforeANewerMergedOneLosesAtCommit() throws {
        let directory = try TemporaryDirectory()
        let replica = Self.replica(directory.file("r.sqlite"))
        let store = try PreferenceStore(replica)
        store.set("made first", forKey: "a")  // stamped now, committed after the merge below
        try replica.merge([
            .init(key: "a", value: .string("made later"), stamp: .init(milliseconds: Self.start + 5, counter: 0), replicaID: "x")
        ])
        try store.flush()
        #expect(store.value(forKey: "a", as: String.self) == "made later")
        #expect(try replica.pendingWrites().isEmpty)
    }

    @Test func aCopiedFileTakesANewIDAndSaysWhichItWasCopiedFrom() throws {
        let directory = try TemporaryDirectory()
        let original = directory.file("r.sqlite")
        let store = try PreferenceStore(Self.replica(original), durability: .immediate)
        store.set(1, forKey: "a")
        let originalID = try Self.replica(original).currentIdentity()
        let copy = directory.file("copy.sqlite")
        for suffix in ["", "-wal"] {  // the file and its log, as a backup of the directory holds them
            try FileManager.default.copyItem(atPath: original.path + suffix, toPath: copy.path + suffix)
        }
        let copied = try Self.replica(copy).currentIdentity()
        #expect(copied.replicaID != originalID.replicaID)
        #expect(copied.copiedFrom == originalID.replicaID)
        #expect(try Self.replica(original).currentIdentity().replicaID == originalID.replicaID)
        #expect(try Self.replica(copy).currentIdentity() == copied)  // once: the copy keeps its new id
    }

    @Test func theClockResumesPastTheFilesStampsUnderAWallClockSetBack() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("r.sqlite")
        let first = Self.replica(url)
        let store = try PreferenceStore(first, durability: .immediate)
        store.set(1, forKey: "a")
        let before = try #require(try first.pendingWrites().first?.stamp)
        let behind = ManualWallClock(Self.start - Self.day)
        let later = Self.replica(url, wall: behind)
        let reopened = try PreferenceStore(later, durability: .immediate)
        reopened.set(2, forKey: "a")
        #expect(try #require(try later.pendingWrites().first?.stamp) > before)
    }
}
