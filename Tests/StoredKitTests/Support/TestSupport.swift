import Foundation
import StoredKitTestSupport
import Synchronization
import Testing

@testable import StoredKit

#if canImport(Glibc)
    import Glibc
#endif

/// The support target's, named here once so every test file of this target sees it without an import.
typealias TemporaryDirectory = StoredKitTestSupport.TemporaryDirectory

/// Collects values delivered on other threads.
final class Recorder<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    var values: [Element] { storage.withLock { $0 } }

    func append(_ element: Element) { storage.withLock { $0.append(element) } }

    /// Waits (polling, up to `timeout`) until `count` elements arrived; returns whether they did.
    func wait(forCount count: Int, timeout: Duration = .seconds(60)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if values.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return values.count >= count
    }
}

/// Polls `condition` until it holds or `timeout` seconds pass; returns whether it held.
func waitUntil(timeout: Double = 60, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}

enum Theme: String, Codable, Sendable {
    case light, dark
}

enum Accent: String, Sendable {
    case blue, orange
}

extension StoredKeys {
    static let volume = StoredKey<Double>("volume", default: 0.5)
    static let launchCount = StoredKey<Int>("launchCount", default: 0)
    static let theme = StoredKey<Theme>("theme", default: .dark)
    static let nickname = StoredKey<String?>("nickname")
}

extension Trait where Self == TimeLimitTrait {
    /// For suites that await a change with no deadline of their own (`await iterator.next()`): a
    /// change that never comes cancels the test after 5 minutes, which ends the wait, instead of
    /// hanging the whole run.
    static var awaitsChanges: Self { .timeLimit(.minutes(5)) }
}
