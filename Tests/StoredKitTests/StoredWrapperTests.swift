import Foundation
import Observation
import Synchronization
import Testing

@testable import StoredKit

/// Counts decodes, to prove an unchanged value is not decoded again.
struct Counted: Codable, Sendable, Equatable {
    static let decodes = Atomic<Int>(0)
    var tabs: [String]

    init(tabs: [String]) { self.tabs = tabs }

    init(from decoder: any Decoder) throws {
        Self.decodes.add(1, ordering: .relaxed)
        tabs = try decoder.singleValueContainer().decode([String].self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(tabs)
    }
}

struct Settings {
    let store: PreferenceStore
    @Stored<Int> var launchCount: Int
    @Stored<Theme> var theme: Theme
    @Stored<String?> var nickname: String?
    @Stored<Double> var volume: Double

    init(store: PreferenceStore) {
        self.store = store
        _launchCount = Stored(wrappedValue: 0, "launchCount", store: store)
        _theme = Stored(wrappedValue: .dark, "theme", store: store)
        _nickname = Stored("nickname", store: store)
        _volume = Stored(.volume, store: store)
    }
}

final class Model {
    @Stored<Int> var count: Int
    init(store: PreferenceStore) { _count = Stored(wrappedValue: 1, "count", store: store) }
}

actor Counter {
    @Stored<Int> var total: Int
    init(store: PreferenceStore) { _total = Stored(wrappedValue: 0, "total", store: store) }
    func increment() { total += 1 }
}

@Suite("@Stored", .awaitsChanges)
struct StoredWrapperTests {
    @Test func readsDefaultsThenStoredValues() {
        let store = PreferenceStore.inMemory()
        let settings = Settings(store: store)
        #expect(settings.launchCount == 0)
        #expect(settings.theme == .dark)
        #expect(settings.nickname == nil)
        #expect(settings.volume == 0.5)
        settings.launchCount += 1
        settings.theme = .light
        settings.nickname = "Ada"
        #expect(store.value(forKey: "launchCount", as: Int.self) == 1)
        #expect(store.storedValue(forKey: "theme") == .string("light"))
        #expect(settings.nickname == "Ada")
        settings.nickname = nil
        #expect(store.storedValue(forKey: "nickname") == nil)
    }

    @Test func seesWritesMadeThroughTheStore() {
        let store = PreferenceStore.inMemory()
        let settings = Settings(store: store)
        #expect(settings.launchCount == 0)
        store.set(41, forKey: "launchCount")
        #expect(settings.launchCount == 41)
    }

    @Test func resetAndIsPersisted() {
        let store = PreferenceStore.inMemory()
        let settings = Settings(store: store)
        #expect(!settings.$launchCount.isPersisted)
        settings.launchCount = 3
        #expect(settings.$launchCount.isPersisted)
        settings.$launchCount.reset()
        #expect(settings.launchCount == 0)
        #expect(!settings.$launchCount.isPersisted)
    }

    @Test func worksInClassesAndActors() async {
        let store = PreferenceStore.inMemory()
        let model = Model(store: store)
        model.count += 1
        #expect(store.value(forKey: "count", as: Int.self) == 2)
        let counter = Counter(store: store)
        await counter.increment()
        await counter.increment()
        #expect(await counter.total == 2)
    }

    @Test func unchangedCodableValueIsNotDecodedAgain() {
        let store = PreferenceStore.inMemory()
        store.set(Counted(tabs: ["home", "search"]), forKey: "tabs")
        let tabs = Stored(wrappedValue: Counted(tabs: []), "tabs", store: store)
        let before = Counted.decodes.load(ordering: .relaxed)
        for _ in 0..<100 { #expect(tabs.wrappedValue.tabs == ["home", "search"]) }
        #expect(Counted.decodes.load(ordering: .relaxed) - before == 1)
        store.set(Counted(tabs: ["home"]), forKey: "tabs")
        for _ in 0..<100 { #expect(tabs.wrappedValue.tabs == ["home"]) }
        #expect(Counted.decodes.load(ordering: .relaxed) - before == 2)
    }

    @Test func projectedValuesStreamAndObserve() async {
        let store = PreferenceStore.inMemory()
        let settings = Settings(store: store)
        let seen = Recorder<Int>()
        let token = settings.$launchCount.observe { seen.append($0.newValue) }
        var iterator = settings.$launchCount.values.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        settings.launchCount = 1
        #expect(await iterator.next() == 1)
        #expect(seen.values == [1])
        withExtendedLifetime(token) {}
    }

    @Test func observationTrackingIsToldOfChanges() {
        let store = PreferenceStore.inMemory()
        let settings = Settings(store: store)
        let fired = Recorder<Bool>()
        withObservationTracking {
            _ = settings.launchCount
        } onChange: {
            fired.append(true)
        }
        store.set(1, forKey: "unrelated")
        #expect(fired.values.isEmpty)
        settings.launchCount = 5
        #expect(fired.values == [true])
    }
}

/// A view model as an app on Apple platforms would write it.
@Observable
final class SettingsModel {
    @ObservationIgnored @Stored<Int> var launchCount: Int
    var unrelated = 0

    init(store: PreferenceStore) {
        _launchCount = Stored(wrappedValue: 0, "launchCount", store: store)
    }
}

@Suite("@Stored inside an @Observable model")
struct ObservableModelTests {
    @Test func modelReadersAreToldWhenTheStoredValueChanges() {
        let store = PreferenceStore.inMemory()
        let model = SettingsModel(store: store)
        let fired = Recorder<Bool>()
        withObservationTracking {
            _ = model.launchCount
        } onChange: {
            fired.append(true)
        }
        store.set(7, forKey: "launchCount")  // a write from anywhere, not through the model
        #expect(fired.values == [true])
        #expect(model.launchCount == 7)
    }
}
