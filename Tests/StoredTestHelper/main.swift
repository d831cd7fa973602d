import Foundation
import StoredKit
import Synchronization

// A helper process for the multi-process tests: each command opens a real store file,
// does one thing, and reports on stdout line by line (unbuffered, so a parent that kills us
// knows exactly what was acknowledged).

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("stored-test-helper: " + message + "\n").utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    fail("usage: stored-test-helper increment|set|observe|write-loop PATH ...")
}
let url = URL(fileURLWithPath: arguments[1])
let durability: Durability = ProcessInfo.processInfo.environment["STORED_DURABILITY"] == "immediate" ? .immediate : .deferred

do {
    let store = try PreferenceStore(fileAt: url, durability: durability)
    switch arguments[0] {
    case "increment":
        // increment PATH COUNT: COUNT atomic read-modify-writes of "counter".
        let count = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0
        let key = StoredKey<Int>("counter", default: 0)
        for _ in 0..<count { try store.update(key) { $0 += 1 } }
        say("done")
    case "set":
        // set PATH KEY VALUE: one string value, flushed.
        guard arguments.count == 4 else { fail("set PATH KEY VALUE") }
        store.set(arguments[3], forKey: arguments[2])
        try store.flush()
        say("done")
    case "set-and-exit":
        // set-and-exit PATH KEY VALUE: one deferred write, then a normal exit with no flush call:
        // the store's exit hook must save it.
        guard arguments.count == 4 else { fail("set-and-exit PATH KEY VALUE") }
        store.set(arguments[3], forKey: arguments[2])
        say("set")
        exit(0)
    case "observe":
        // observe PATH KEY COUNT: prints "ready", then one line per change, exits after COUNT.
        guard arguments.count == 4, let count = Int(arguments[3]) else { fail("observe PATH KEY COUNT") }
        let done = DispatchSemaphore(value: 0)
        let seen = LockedCounter()
        let token = store.observe(arguments[2]) { change in
            say("\(change.key)=\(change.newValue.map(\.description) ?? "nil") \(change.origin)")
            if seen.increment() == count { done.signal() }
        }
        say("ready")
        let finished = done.wait(timeout: .now() + 30) == .success
        token.cancel()
        exit(finished ? 0 : 1)
    case "write-loop":
        // write-loop PATH: writes 1, 2, 3 ... to "n" until killed, printing each acknowledged value.
        var value = 0
        while true {
            value += 1
            store.set(value, forKey: "n")
            if durability == .deferred { try store.flush() }
            say("\(value)")
        }
    default:
        fail("unknown command '\(arguments[0])'")
    }
} catch {
    fail("\(error)")
}

/// Counts from any thread.
final class LockedCounter: Sendable {
    private let value = Mutex(0)
    func increment() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
