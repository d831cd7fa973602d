import Foundation
import StoredKit
import StoredKitTestSupport

/// A Foundation `UserDefaults` suite of its own, removed afterwards (its plist file included). The
/// whole run also points `XDG_CONFIG_HOME` at its work directory (see ``Isolation``), so baselines
/// never touch the user's real defaults.
///
/// ```swift
/// try TemporaryDefaults.with { defaults in defaults.set(1, forKey: "a") }
/// ```
struct TemporaryDefaults {
    let suiteName: String
    let defaults: UserDefaults

    /// A new suite, empty or holding the content of the plist file `preloaded` (put in place before
    /// Foundation first looks at the suite). Filling a big suite key by key is not practical:
    /// on Linux each `set` costs time proportional to the keys already in the suite.
    init(preloadedFrom preloaded: URL? = nil) throws {
        suiteName = "stored-bench-\(UUID().uuidString)"
        if let preloaded {
            let destination = Self.fileURL(suiteName: suiteName)
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: preloaded, to: destination)
        }
        guard let defaults = UserDefaults(suiteName: suiteName) else {
            throw BenchmarkError.unexpected("UserDefaults(suiteName: \(suiteName)) returned nil")
        }
        self.defaults = defaults
    }

    /// Runs `body` on a fresh suite and removes the suite afterwards, also when `body` throws.
    static func with<R>(preloadedFrom preloaded: URL? = nil, _ body: (UserDefaults) throws -> R) throws -> R {
        let suite = try TemporaryDefaults(preloadedFrom: preloaded)
        defer { suite.remove() }
        return try body(suite.defaults)
    }

    /// Where Foundation on Linux keeps the suite: `$XDG_CONFIG_HOME/<suite>.plist` (else `~/.config`).
    var fileURL: URL { Self.fileURL(suiteName: suiteName) }

    private static func fileURL(suiteName: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        let configHome =
            environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config", isDirectory: true)
        return configHome.appendingPathComponent("\(suiteName).plist")
    }

    /// Writes the suite once more, so Foundation holds no unsaved change that a later
    /// `synchronize()` of another suite would write back (and time), then deletes its file.
    /// (`removePersistentDomain` would be simpler, but costs seconds on a suite of 10,000 keys.)
    func remove() {
        defaults.synchronize()
        try? FileManager.default.removeItem(at: fileURL)  // gone already is fine
    }
}

/// Key names and preference contents shared by the bulk, open, flush and memory scenarios.
enum PreferenceContent {
    /// `count` distinct key names, `key-0` ... `key-<count-1>`.
    static func keys(_ count: Int) -> [String] { (0..<count).map { "key-\($0)" } }

    /// Writes `keys` → `values` as the XML plist Foundation's UserDefaults itself writes on Linux.
    static func writeIntegerPlist(keys: [String], values: [Int], to url: URL) throws {
        let content = Dictionary(uniqueKeysWithValues: zip(keys, values))
        try PropertyListSerialization.data(fromPropertyList: content, format: .xml, options: 0).write(to: url)
    }

    /// `count` random integers (MMKV's benchmark shape).
    static func randomIntegers(_ count: Int, seed: UInt64) -> [Int] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in Int.random(in: 0..<1_000_000, using: &generator) }
    }

    /// A realistic mix of preference values (integers, strings, booleans, reals), as Foundation sees
    /// them and as StoredKit sees them: the same content on both sides of a comparison.
    static func mixed(_ count: Int, revision: Int = 0) -> (foundation: [String: Any], stored: [String: StoredValue]) {
        var foundation: [String: Any] = [:]
        var stored: [String: StoredValue] = [:]
        for index in 0..<count {
            let key = "key-\(index)"
            switch index % 4 {
            case 0:
                foundation[key] = index + revision
                stored[key] = .int(Int64(index + revision))
            case 1:
                foundation[key] = "value \(index) r\(revision)"
                stored[key] = .string("value \(index) r\(revision)")
            case 2:
                foundation[key] = (index + revision) % 3 == 0
                stored[key] = .bool((index + revision) % 3 == 0)
            default:
                foundation[key] = Double(index + revision) / 7
                stored[key] = .double(Double(index + revision) / 7)
            }
        }
        return (foundation, stored)
    }
}
