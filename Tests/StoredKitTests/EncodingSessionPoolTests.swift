import Foundation
import StoredKitTestSupport
import Testing

@testable import StoredKit

/// The encoder keeps its last session, with its containers, for the next encoding
/// (``EncodingSessionPool``). What a type keeps of one encoding (its encoder, a container) must
/// never write into a later one; each test uses a pool of its own, as keeping something turns
/// pooling off for good.
@Suite("A reused encoding session cannot be written to by what an earlier encoding kept")
struct EncodingSessionPoolTests {
    /// Where a leaking type puts what it kept, and what it kept it for.
    final class Stash: @unchecked Sendable {
        var keyed: KeyedEncodingContainer<Keys>?
        var unkeyed: (any UnkeyedEncodingContainer)?
        var single: (any SingleValueEncodingContainer)?
        var encoder: (any Encoder)?
    }

    enum Keys: String, CodingKey { case name, junk, items }

    /// Keeps what `keep` names past its `encode(to:)`.
    struct Leaky: Encodable {
        enum Keep { case keyed, unkeyed, single, encoder }
        let stash: Stash
        let keep: Keep
        var name = "leaky"

        func encode(to encoder: any Encoder) throws {
            switch keep {
            case .keyed, .encoder:
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(name, forKey: .name)
                if keep == .keyed { stash.keyed = container } else { stash.encoder = encoder }
            case .unkeyed:
                var container = encoder.unkeyedContainer()
                try container.encode(name)
                stash.unkeyed = container
            case .single:
                var container = encoder.singleValueContainer()
                try container.encode(name)
                stash.single = container
            }
        }
    }

    /// Writes its own keys and, in the middle of them, through whatever `stash` kept from an
    /// earlier encoding: the worst moment for a kept container to write.
    struct Meddler: Encodable {
        let stash: Stash
        var name = "meddler"
        var items = [1, 2]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(name, forKey: .name)
            try stash.keyed?.encode("junk", forKey: .junk)
            try stash.unkeyed?.encode("junk")
            try stash.single?.encode("junk")
            if let kept = stash.encoder {
                var keptContainer = kept.container(keyedBy: Keys.self)
                try keptContainer.encode("junk", forKey: .junk)
            }
            try container.encode(items, forKey: .items)
        }
    }

    static let meddlerAlone: StoredValue = .dictionary(["name": .string("meddler"), "items": .array([.int(1), .int(2)])])

    @Test(arguments: [Leaky.Keep.keyed, .unkeyed, .single, .encoder])
    func whatATypeKeptWritesIntoNoLaterEncoding(keep: Leaky.Keep) throws {
        let pool = EncodingSessionPool()
        let stash = Stash()
        let leaked = try EncodingSession.encodeWithFacts(Leaky(stash: stash, keep: keep), pool: pool).value
        #expect(
            leaked
                == (keep == .keyed || keep == .encoder
                    ? .dictionary(["name": .string("leaky")]) : keep == .unkeyed ? .array([.string("leaky")]) : .string("leaky")))
        // A kept box keeps its session alive for good and turns the pool off; a kept session
        // (encoder, unkeyed or single-value container) is just not pooled.
        #expect(pool.isEnabled == (keep != .keyed))
        for _ in 0..<3 {
            let later = try EncodingSession.encodeWithFacts(Meddler(stash: stash), pool: pool).value
            #expect(later == Self.meddlerAlone)
            let tabs = try EncodingSession.encodeWithFacts(SidebarCustomization.twentyTabs(revision: 3), pool: pool).value
            #expect(
                tabs
                    == (try EncodingSession.encodeWithFacts(
                        SidebarCustomization.twentyTabs(revision: 3), pool: EncodingSessionPool()
                    ).value))
        }
        // What was kept still takes writes without failing; they go nowhere anyone reads.
        try stash.keyed?.encode("after", forKey: .junk)
        try stash.unkeyed?.encode("after")
        try stash.single?.encode("after")
    }

    @Test func aKeptEncoderUsedAgainIsReleasedWithItsHolder() throws {
        let pool = EncodingSessionPool()
        weak var weakSession: AnyObject?
        do {
            let stash = Stash()
            _ = try EncodingSession.encodeWithFacts(Leaky(stash: stash, keep: .encoder), pool: pool)
            let kept = try #require(stash.encoder)
            weakSession = kept as AnyObject
            // A container made now holds the session; the session must not keep it (a cycle).
            var container = kept.container(keyedBy: Keys.self)
            try container.encode("late", forKey: .junk)
        }
        #expect(weakSession == nil)
    }

    /// Keeps its encoder weakly or unowned: references `isKnownUniquelyReferenced` does not count.
    struct QuietKeeper: Encodable {
        final class Holder: @unchecked Sendable {
            weak var weakEncoder: AnyObject?
            unowned(safe) var unownedEncoder: AnyObject?
        }
        let holder: Holder
        let weakly: Bool

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("quiet", forKey: .name)
            if weakly { holder.weakEncoder = encoder as AnyObject } else { holder.unownedEncoder = encoder as AnyObject }
        }
    }

    @Test(arguments: [true, false])
    func anEncoderKeptWeaklyOrUnownedIsNotReused(weakly: Bool) throws {
        let pool = EncodingSessionPool()
        let holder = QuietKeeper.Holder()
        let stored = try EncodingSession.encodeWithFacts(QuietKeeper(holder: holder, weakly: weakly), pool: pool).value
        #expect(stored == .dictionary(["name": .string("quiet")]))
        #expect(!pool.hasIdleSession)
        // Nothing holds it, so it is gone (were it pooled, the pool would hold it).
        #expect(holder.weakEncoder == nil)
        _ = try EncodingSession.encodeWithFacts("next", pool: pool)
        #expect(pool.hasIdleSession)
    }

    @Test func aSessionNothingWasKeptOfIsReusedAndEncodesLikeANewOne() throws {
        let pool = EncodingSessionPool()
        let values: [any Encodable] = [
            SidebarCustomization.twentyTabs(revision: 1), ["a": [1, 2]], SidebarCustomization.twentyTabs(revision: 2),
            [Date(timeIntervalSince1970: 5)], "plain", SidebarCustomization.twentyTabs(revision: 1),
        ]
        var first: ObjectIdentifier?  // not the session: holding it would count as keeping it
        for value in values {
            let pooled = try EncodingSession.encodeWithFacts(value, pool: pool)
            let fresh = try EncodingSession.encodeWithFacts(value, pool: EncodingSessionPool())
            #expect(pooled.value == fresh.value)
            #expect(pooled.facts == fresh.facts)
            var session = pool.take()
            if let first {
                #expect(ObjectIdentifier(session) == first, "the same session comes back")
            } else {
                first = ObjectIdentifier(session)
            }
            pool.giveBack(&session)
        }
        #expect(pool.isEnabled)
    }

    /// Fails on its second element, after writing part of the value.
    struct FailsMidway: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("partial", forKey: .name)
            var items = container.nestedUnkeyedContainer(forKey: .items)
            try items.encode(1)
            throw EncodingError.invalidValue(2, .init(codingPath: items.codingPath, debugDescription: "no"))
        }
    }

    @Test func anEncodingThatThrewLeavesNothingForTheNext() throws {
        let pool = EncodingSessionPool()
        #expect(throws: StoreError.self) { try EncodingSession.encodeWithFacts(FailsMidway(), pool: pool) }
        let later = try EncodingSession.encodeWithFacts(Meddler(stash: Stash()), pool: pool).value
        #expect(later == Self.meddlerAlone)
        #expect(pool.isEnabled)
    }
}
