import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

// The examples of "Gotchas" (Sources/StoredKit/StoredKit.docc/Gotchas.md).

/// The mistake: the token is a local, released when `startObserving` returns.
final class ForgetfulPlayer {
    let seen = Seen<Double>()
    func startObserving(_ store: PreferenceStore) {
        _ = store.observe(.volume) { [seen] change in seen.append(change.newValue) }
    }
}

/// The fix: the token lives as long as the object.
final class Player {
    let seen = Seen<Double>()
    private var tokens: Set<ObservationToken> = []
    func startObserving(_ store: PreferenceStore) {
        tokens.insert(store.observe(.volume) { [seen] change in seen.append(change.newValue) })
    }
}

@Suite("Gotchas")
struct GotchasExamples {
    @Test func aDroppedTokenObservesNothing() {
        let store = PreferenceStore.inMemory()
        let forgetful = ForgetfulPlayer()
        forgetful.startObserving(store)
        let player = Player()
        player.startObserving(store)
        store[.volume] = 0.8
        #expect(forgetful.seen.values.isEmpty)
        #expect(player.seen.values == [0.8])
    }

    @Test func registeredDefaultsAreNotPersisted() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.sqlite")
        do {
            let store = try PreferenceStore(.sqlite(at: url))
            store.register(defaults: ["volume": 0.7])
            #expect(store[.volume] == 0.7)
            try store.flush()
        }
        let reopened = try PreferenceStore(.sqlite(at: url))
        #expect(reopened[.volume] == 0.5)  // the key's own default: nothing was stored
    }

    @Test func xmlPlistDatesAreWholeSeconds() throws {
        let directory = try TemporaryDirectory()
        let date = Date(timeIntervalSince1970: 1_714_557_600.25)
        for (name, format, expected) in [
            ("xml.plist", PlistFormat.xml, Date(timeIntervalSince1970: 1_714_557_600)),
            ("binary.plist", PlistFormat.binary, date),
        ] {
            let url = directory.file(name)
            do {
                let store = try PreferenceStore(.plist(at: url, format: format))
                store.set(date, forKey: "lastOpened")
                try store.flush()
            }
            let reopened = try PreferenceStore(.plist(at: url, format: format))
            #expect(reopened.value(forKey: "lastOpened", as: Date.self) == expected)
        }
    }

    @Test func aPropertyPicksItsStoreWhenItIsCreated() {
        let scoped = PreferenceStore.inMemory()
        let settings = PreferenceStore.withStandard(scoped) { Settings() }
        settings.launchCount = 3  // after the scope: still the scoped store
        #expect(scoped.value(forKey: "launchCount", as: Int.self) == 3)
    }

    @Test func canonicallyEqualKeysAreOneKey() {
        let store = PreferenceStore.inMemory()
        store.set(1, forKey: "caf\u{E9}")
        #expect(store.value(forKey: "cafe\u{301}", as: Int.self) == 1)
    }

    @Test func anUnchangedWriteNotifiesNobody() {
        let store = PreferenceStore.inMemory()
        let seen = Seen<Double>()
        let token = store.observe(.volume) { seen.append($0.newValue) }
        store[.volume] = 0.8
        store[.volume] = 0.8  // the same again: nobody is told
        #expect(seen.values == [0.8])
        withExtendedLifetime(token) {}
    }
}
