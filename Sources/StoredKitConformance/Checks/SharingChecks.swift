import Foundation
import StoredKit
import Testing

/// Another instance's writes reach a store: its observers, and its plain reads.
enum SharingChecks {
    static let all: [BackendConformance.Check] = [reachesObservers, reachesUnobservedReads]

    static let reachesObservers = BackendConformance.Check(
        "another instance's write reaches an observer, as external", requires: .sharedBetweenInstances
    ) { subject in
        let mine = try subject.openStore()
        let changes = Received<Change>()
        let token = mine.observe("shared") { changes.append($0) }
        let theirs = try subject.openStore()
        theirs.set("from elsewhere", forKey: "shared")
        try theirs.flush()
        let arrived = await eventually { changes.all.contains { $0.newValue == .string("from elsewhere") } }
        #expect(arrived, "no change reached the observer")
        #expect(changes.all.last?.origin == .external)
        theirs.removeValue(forKey: "shared")
        try theirs.flush()
        #expect(await eventually { changes.all.last?.newValue == nil }, "the removal did not reach the observer")
        withExtendedLifetime(token) {}
    }

    static let reachesUnobservedReads = BackendConformance.Check(
        "another instance's write reaches a store that nothing observes", requires: .sharedBetweenInstances
    ) { subject in
        let mine = try subject.openStore()
        mine.set(1, forKey: "count")
        try mine.flush()
        #expect(mine.value(forKey: "count", as: Int.self) == 1)
        let theirs = try subject.openStore()
        theirs.set(2, forKey: "count")
        try theirs.flush()
        let arrived = await eventually { mine.value(forKey: "count", as: Int.self) == 2 }
        #expect(arrived, "the store kept reading its old value")
    }
}
