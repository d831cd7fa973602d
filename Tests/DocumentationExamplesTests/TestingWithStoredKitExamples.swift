import Foundation
import StoredKit
import Testing

// The examples of "Testing with StoredKit" (Sources/StoredKit/StoredKit.docc/TestingWithStoredKit.md).

/// Code under test that uses the standard store, as app code does.
struct LaunchCounter {
    @Stored("launchCount") var launchCount = 0
    func appDidLaunch() { launchCount += 1 }
}

/// Code under test that is given its store.
struct VolumeControl {
    let store: PreferenceStore
    func louder() { store[.volume] = min(1, store[.volume] + 0.1) }
}

@Suite("Testing with StoredKit", .awaitsChanges)
struct TestingWithStoredKitExamples {
    @Test func countsLaunches() {
        PreferenceStore.withStandard(.inMemory()) {
            let counter = LaunchCounter()  // its @Stored properties use the in-memory store
            counter.appDidLaunch()
            #expect(PreferenceStore.standard.value(forKey: "launchCount", as: Int.self) == 1)
        }
    }

    @Test func countsLaunchesInAsyncCode() async {
        await PreferenceStore.withStandard(.inMemory()) {
            let counter = LaunchCounter()
            await Task { counter.appDidLaunch() }.value  // Task { } inherits the scope
            #expect(counter.launchCount == 1)
        }
    }

    @Test func givenAStoreStartingWithValues() {
        let store = PreferenceStore.inMemory(["volume": .double(0.95)])
        VolumeControl(store: store).louder()
        #expect(store[.volume] == 1)
    }

    @Test func userChoicesAndDefaults() {
        PreferenceStore.withStandard(.inMemory()) {
            let counter = LaunchCounter()
            #expect(!counter.$launchCount.isPersisted)
            counter.appDidLaunch()
            #expect(counter.$launchCount.isPersisted)
            PreferenceStore.standard.removeAll()
            #expect(counter.launchCount == 0)
        }
    }

    @Test func anotherProcessSimulatedInMemory() async throws {
        let shared = MemoryBackend()
        let app = try PreferenceStore(shared)
        let otherProcess = try PreferenceStore(MemoryBackend(sharing: shared))
        var volumes = app.values(for: .volume).makeAsyncIterator()
        #expect(await volumes.next() == 0.5)
        otherProcess[.volume] = 0.8
        try otherProcess.flush()
        #expect(await volumes.next() == 0.8)
    }
}
