import Foundation
import Testing

@testable import StoredKit

/// `PreferenceStore.withStandard` keeps tests away from the user's real preferences file.
@Suite("A scoped standard store")
struct StandardStoreScopeTests {
    @Test func storedPropertiesWithoutAStoreUseTheScopedOne() {
        let scoped = PreferenceStore.inMemory()
        PreferenceStore.withStandard(scoped) {
            @Stored("launchCount") var launchCount = 0
            launchCount += 1
            #expect(PreferenceStore.standard === scoped)
        }
        #expect(scoped.value(forKey: "launchCount", as: Int.self) == 1)
    }

    @Test func scopesNestAndTheInnermostWins() {
        let outer = PreferenceStore.inMemory()
        let inner = PreferenceStore.inMemory()
        PreferenceStore.withStandard(outer) {
            PreferenceStore.withStandard(inner) {
                #expect(PreferenceStore.standard === inner)
            }
            #expect(PreferenceStore.standard === outer)
        }
    }

    @Test func theResultAndErrorsOfTheBodyPassThrough() {
        struct Failure: Error {}
        let count = PreferenceStore.withStandard(.inMemory(["n": .int(4)])) {
            PreferenceStore.standard.value(forKey: "n", as: Int.self)
        }
        #expect(count == 4)
        #expect(throws: Failure.self) {
            try PreferenceStore.withStandard(.inMemory()) { throw Failure() }
        }
    }

    @Test func theAsyncFormReachesChildTasks() async {
        let scoped = PreferenceStore.inMemory()
        let seen = await PreferenceStore.withStandard(scoped) {
            async let child = PreferenceStore.standard
            let inherited = await Task { PreferenceStore.standard }.value
            return await [child, inherited]
        }
        #expect(seen.allSatisfy { $0 === scoped })
    }
}
