import Foundation
import Observation
import StoredKit
import StoredKitTestSupport
import Synchronization
import Testing

// The examples of "Observing changes" (Sources/StoredKit/StoredKit.docc/ObservingChanges.md).

/// Collects what handlers deliver on other threads.
final class Seen<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])
    var values: [Element] { storage.withLock { $0 } }
    func append(_ element: Element) { storage.withLock { $0.append(element) } }
}

@Observable
final class PlayerModel {
    @ObservationIgnored @Stored<Double> var volume: Double
    var isPlaying = false

    init(store: PreferenceStore) {
        _volume = Stored(.volume, store: store)
    }
}

@Suite("Observing changes", .awaitsChanges)
struct ObservingChangesExamples {
    @Test func aTokenObservesATypedKey() {
        let store = PreferenceStore.inMemory()
        let seen = Seen<String>()
        let token = store.observe(.volume) { change in
            seen.append("\(change.oldValue) -> \(change.newValue) (\(change.origin))")
        }
        store[.volume] = 0.8
        store[.volume] = 0.8  // unchanged: nobody is told
        #expect(seen.values == ["0.5 -> 0.8 (local)"])
        token.cancel()
        store[.volume] = 0.2
        #expect(seen.values.count == 1)
    }

    @Test func releasingTheTokenStopsTheHandler() {
        let store = PreferenceStore.inMemory()
        let seen = Seen<Double>()
        var token: ObservationToken? = store.observe(.volume) { seen.append($0.newValue) }
        store[.volume] = 0.8
        token = nil
        store[.volume] = 0.2
        #expect(seen.values == [0.8])
        _ = token
    }

    @Test func changesStreamEveryKey() async {
        let store = PreferenceStore.inMemory()
        var changes = store.changes.makeAsyncIterator()
        store.set(1, forKey: "a")
        store.removeValue(forKey: "a")
        let first = await changes.next()
        let second = await changes.next()
        #expect(first?.key == "a" && first?.newValue == .int(1))
        #expect(second?.newValue == nil)
    }

    @Test func valuesStartWithTheCurrentValue() async {
        let store = PreferenceStore.inMemory()
        var values = store.values(for: .volume).makeAsyncIterator()
        #expect(await values.next() == 0.5)
        store[.volume] = 0.8
        #expect(await values.next() == 0.8)
    }

    @Test func observationTracksStoredReadsInAnObservableModel() {
        let store = PreferenceStore.inMemory()
        let model = PlayerModel(store: store)
        let fired = Seen<Bool>()
        withObservationTracking {
            _ = model.volume
        } onChange: {
            fired.append(true)
        }
        store[.volume] = 0.8  // a write from anywhere, not through the model
        #expect(fired.values == [true])
        #expect(model.volume == 0.8)
    }

    @Test func anotherStoreOnTheSameFileIsExternal() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefs.plist")
        let app = try PreferenceStore(.plist(at: url))
        let other = try PreferenceStore(.plist(at: url))  // as another process would
        var changes = app.changes.makeAsyncIterator()
        other[.volume] = 0.8
        try other.flush()
        let change = await changes.next()
        #expect(change?.key == "volume")
        #expect(change?.origin == .external)
        #expect(app[.volume] == 0.8)
    }
}
