import Foundation
import StoredKit
import Testing

/// The backend as the user's layer of a store with layers: it holds the user's writes only,
/// forced keys never reach it, and another instance's writes under a layer are stored without
/// changing what the key reads.
enum LayerChecks {
    static let all: [BackendConformance.Check] = [userLayerHoldsOnlyTheUsersWrites, hiddenExternalWritesDoNotNotify]

    /// A forced `locked`, an argument `shown`, defaults for `fallback` and `shown`.
    static let layers: [PreferenceLayer] = [
        .forced(.memory(["locked": .string("administrator")], name: "policy")),
        .arguments(["app", "-shown", "from argument"]),
        .defaults(.memory(["fallback": .int(7), "shown": .string("from defaults")], name: "site")),
    ]

    static let userLayerHoldsOnlyTheUsersWrites = BackendConformance.Check(
        "as the user's layer, the backend holds the user's writes only; forced keys never reach it",
        requires: .persistent
    ) { subject in
        let store = try PreferenceStore(subject.openBackend(), layers: layers, durability: .immediate)
        #expect(store.value(forKey: "locked", as: String.self) == "administrator")
        #expect(store.value(forKey: "shown", as: String.self) == "from argument")
        #expect(store.value(forKey: "fallback", as: Int.self) == 7)
        store.set("user", forKey: "locked")
        store.set("user", forKey: "shown")
        store.set(8, forKey: "fallback")
        #expect(throws: (any Error).self) {
            try store.transaction { tx in
                tx.set(1, forKey: "other")
                tx.set("user", forKey: "locked")
            }
        }
        try store.flush()
        #expect(try subject.reload().values == ["shown": .string("user"), "fallback": .int(8)])
        #expect(store.value(forKey: "shown", as: String.self) == "from argument", "an argument must still win")
        #expect(store.value(forKey: "fallback", as: Int.self) == 8, "the user's value must win over defaults")
        store.removeValue(forKey: "fallback")
        try store.flush()
        #expect(store.value(forKey: "fallback", as: Int.self) == 7, "a removed user value must uncover the defaults")
        #expect(try subject.reload().values == ["shown": .string("user")])
    }

    static let hiddenExternalWritesDoNotNotify = BackendConformance.Check(
        "another instance's write under a higher layer is stored but notifies nobody; one above the defaults does",
        requires: [.persistent, .sharedBetweenInstances]
    ) { subject in
        let mine = try PreferenceStore(subject.openBackend(), layers: layers)
        let changes = Received<Change>()
        let token = mine.changes
        let listener = Task { for await change in token { changes.append(change) } }
        defer { listener.cancel() }
        try await Task.sleep(for: .milliseconds(20))  // the stream registers its observer
        let theirs = try subject.openStore()
        theirs.set("theirs", forKey: "locked")
        theirs.set("theirs", forKey: "shown")
        theirs.set(9, forKey: "fallback")
        try theirs.flush()
        let arrived = await eventually { changes.all.contains { $0.key == "fallback" } }
        #expect(arrived, "the write above the defaults did not reach the observer")
        #expect(changes.all.map(\.key) == ["fallback"], "hidden keys notified: \(changes.all)")
        #expect(changes.all.first?.origin == .external)
        #expect(await eventually { mine.userValue(forKey: "locked", as: String.self) == "theirs" })
        #expect(mine.value(forKey: "locked", as: String.self) == "administrator")
        #expect(mine.value(forKey: "shown", as: String.self) == "from argument")
        #expect(mine.value(forKey: "fallback", as: Int.self) == 9)
    }
}
