import Foundation
import Synchronization
import Testing

@testable import StoredKit

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh temporary directory for one test, removed when released (or by ``remove()``).
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "StoredKitTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path }

    /// The SQLite store file most tests use.
    var database: URL { file("prefs.sqlite") }

    func file(_ name: String) -> URL { url.appending(path: name) }

    func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// Removes the directory, first making it writable again (a test may have locked it).
    func remove() {
        chmod(path, 0o700)
        try? FileManager.default.removeItem(at: url)
    }

    deinit {
        remove()
    }

    static func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? Int) ?? -1
    }

    /// Whether the file system refuses writes to a read-only directory for this process (root bypasses it).
    static let permissionsAreEnforced: Bool = {
        guard let scratch = try? TemporaryDirectory() else { return false }
        chmod(scratch.path, 0o500)
        let probe = open(scratch.path + "/probe", O_WRONLY | O_CREAT, 0o600)
        if probe >= 0 { close(probe) }
        return probe < 0
    }()
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

/// Polls `condition` until it holds or `timeout` seconds pass; returns whether it held.
func waitUntil(timeout: Double = 15, _ condition: () throws -> Bool) async rethrows -> Bool {
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
