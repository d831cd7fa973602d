import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

// The examples of "Getting started" (Sources/StoredKit/StoredKit.docc/GettingStarted.md).

enum Theme: String, Codable, Sendable { case light, dark }

struct Settings {
    @Stored("launchCount") var launchCount = 0  // the standard store
    @Stored(.volume) var volume  // a typed key, declared once
    @Stored("nickname") var nickname: String?  // nil = nothing stored
    @Stored("theme") var theme = Theme.dark  // a RawRepresentable enum, stored by raw value
}

/// A type whose store is given at run time: the wrapper is built in `init`.
struct AccountSettings {
    @Stored<Int> var launchCount: Int

    init(store: PreferenceStore) {
        _launchCount = Stored(wrappedValue: 0, "launchCount", store: store)
    }
}

@Suite("Getting started", .awaitsChanges)
struct GettingStartedExamples {
    @Test func settingsReadDefaultsAndWrite() {
        PreferenceStore.withStandard(.inMemory()) {
            let settings = Settings()
            #expect(settings.launchCount == 0)
            #expect(settings.volume == 0.5)
            #expect(settings.nickname == nil)
            settings.launchCount += 1
            settings.nickname = "Ada"
            settings.theme = .light
            #expect(PreferenceStore.standard.value(forKey: "launchCount", as: Int.self) == 1)
            #expect(PreferenceStore.standard.value(forKey: "theme", as: String.self) == "light")
            settings.nickname = nil
            #expect(!PreferenceStore.standard.hasValue(forKey: "nickname"))
        }
    }

    @Test func valuesStreamStartsWithTheCurrentValue() async {
        await PreferenceStore.withStandard(.inMemory()) {
            let settings = Settings()
            var iterator = settings.$volume.values.makeAsyncIterator()
            #expect(await iterator.next() == 0.5)
            settings.volume = 0.8
            #expect(await iterator.next() == 0.8)
        }
    }

    @Test func sqliteStoreKeepsWhatWasWritten() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.sqlite")
        do {
            let store = try PreferenceStore(.sqlite(at: url))
            store[.volume] = 0.8
            try store.update(.launchCount) { $0 += 1 }
            try store.transaction { tx in
                tx.set(1, forKey: "a")
                tx[.volume] = 0.2
            }
            try store.flush()
        }
        let reopened = try PreferenceStore(.sqlite(at: url))
        #expect(reopened[.volume] == 0.2)
        #expect(reopened[.launchCount] == 1)
        #expect(reopened.value(forKey: "a", as: Int.self) == 1)
    }

    @Test func aThrowInsideATransactionRollsItAllBack() throws {
        struct Cancelled: Error {}
        let store = PreferenceStore.inMemory()
        #expect(throws: Cancelled.self) {
            try store.transaction { tx in
                tx.set(1, forKey: "a")
                throw Cancelled()
            }
        }
        #expect(!store.hasValue(forKey: "a"))
    }

    @Test func aLocalStoredVariableInAFunction() {
        let store = PreferenceStore.inMemory()
        @Stored(.volume, store: store) var volume
        volume = 0.8
        #expect(store[.volume] == 0.8)
        $volume.reset()
        #expect(volume == 0.5)
    }

    @Test func theSubscriptFormWorksEverywhere() {
        let store = PreferenceStore.inMemory()
        store[.launchCount] += 1
        #expect(store[.launchCount] == 1)
    }

    @Test func aStoreGivenAtRunTime() {
        let store = PreferenceStore.inMemory()
        let settings = AccountSettings(store: store)
        settings.launchCount += 1
        #expect(store[.launchCount] == 1)
    }
}
