import Foundation
import Synchronization
import Testing

@testable import StoredKit

/// A fresh temporary directory for one test, removed when the test's scope ends.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "StoredKitTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appending(path: name) }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Collects values delivered on other threads.
final class Recorder<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    var values: [Element] { storage.withLock { $0 } }

    func append(_ element: Element) { storage.withLock { $0.append(element) } }

    /// Waits (polling, up to `timeout`) until `count` elements arrived; returns whether they did.
    func wait(forCount count: Int, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if values.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return values.count >= count
    }
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(10), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
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
