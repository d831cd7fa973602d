import StoredKit

/// `nested PATH FORM`: one call made from inside a transaction body on the same store, which
/// trapped ("Recursive call to lock Mutex") before nesting was defined. Prints what the store
/// holds afterwards, one `key=value` line each, then "done".
func runNestedCall(_ form: String, on store: PreferenceStore) throws {
    switch form {
    case "transaction":
        try store.transaction { outer in
            outer.set(1, forKey: "a")
            try store.transaction { $0.set(2, forKey: "b") }
        }
    case "update":
        let a = StoredKey<Int>("a", default: 0)
        let b = StoredKey<Int>("b", default: 0)
        try store.update(a) { value in
            try store.update(b) { $0 += 2 }
            value += 1
        }
    case "flush":
        try store.transaction { tx in
            tx.set(1, forKey: "a")
            do {
                try store.flush()
                say("flush returned")
            } catch {
                say("flush threw: \(error)")
            }
            tx.set(2, forKey: "b")
        }
    case "set":
        try store.transaction { tx in
            tx.set(1, forKey: "a")
            store.set(2, forKey: "b")
        }
    case "kept":
        // A transaction kept after its body, used once its store is gone.
        var kept: Transaction?
        do {
            let scoped = try openStore()
            try scoped.transaction { kept = $0 }
        }
        kept?.set(1, forKey: "late")
        say("kept reads \(kept?.storedValue(forKey: "late").map(\.description) ?? "nil")")
        // And while the store lives: reported, not written.
        var keptAlive: Transaction?
        try store.transaction { keptAlive = $0 }
        keptAlive?.set(1, forKey: "late")
        for event in store.recentEvents { say("event: \(event)") }
    case "second-store":
        // A transaction on a second store over the same data, from inside a body: it cannot take
        // the exclusion the first one holds (a plist file's flock waited for ever).
        let second = try openStore()
        try store.transaction { tx in
            tx.set(1, forKey: "a")
            do {
                try second.transaction { $0.set(9, forKey: "late") }
                say("second store's transaction returned")
            } catch {
                say("second store's transaction threw: \(error)")
            }
            tx.set(2, forKey: "b")
        }
    default:
        fail("nested PATH transaction|update|flush|set|kept|second-store")
    }
    for key in ["a", "b", "late"] {
        say("\(key)=\(store.value(forKey: key, as: Int.self).map(String.init) ?? "nil")")
    }
    say("done")
}
