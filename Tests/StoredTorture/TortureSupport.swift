import Foundation
import StoredKit
import StoredKitTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The store files every scenario runs against.
enum StoreKind: String, CaseIterable {
    case plist
    case sqlite

    /// The file name; its extension picks the backend in `PreferenceStore(fileAt:)`.
    var fileName: String { "prefs.\(rawValue)" }
}

/// A fresh directory under the system temporary directory, removed on release, or at exit
/// (SIGINT and SIGTERM included, ``endWithTheTool()``) when the tool ends first.
final class ScratchDirectory {
    let path: String

    init(_ label: String) throws {
        path = FileManager.default.temporaryDirectory.appending(path: "stored-torture-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        _ = Self.existing.withLock { $0.insert(path) }
    }

    /// The directories not removed yet.
    private static let existing = Mutex<Set<String>>([])

    /// At exit (``endWithTheTool()``), once the children are gone: removes every directory not removed yet.
    static func removeAllExisting() {
        let left = existing.withLock { existing in
            defer { existing = [] }
            return existing
        }
        for path in left { try? FileManager.default.removeItem(atPath: path) }
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// Empties the directory for the next trial. A file that is gone already is fine: SQLite
    /// deletes `-shm` and `-wal` when the last connection of the trial before closes, which may
    /// happen while this runs.
    func clear() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            do {
                try FileManager.default.removeItem(atPath: file(name))
            } catch CocoaError.fileNoSuchFile {
                continue
            }
        }
    }

    /// Names in the directory other than the store itself and the companions it keeps while
    /// closed or open: `<store>.lock` (plist), `<store>-wal` and `<store>-shm` (SQLite).
    func leftovers(besides store: String) throws -> [String] {
        let allowed: Set<String> = [store, store + ".lock", store + "-wal", store + "-shm"]
        return try FileManager.default.contentsOfDirectory(atPath: path).filter { !allowed.contains($0) }
    }

    deinit {
        _ = Self.existing.withLock { $0.remove(path) }
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Makes what the scenarios start end with the tool when it exits before releasing them: `exit`
/// runs no deinit, and SIGINT and SIGTERM end through the exit sequence and `_exit`. In this
/// order: the children (killed, since a replica's store would recreate its deleted file), the
/// scratch directories, the servers of its own. Call it first in `main`.
///
/// ```swift
/// endWithTheTool()
/// ```
func endWithTheTool() {
    atexit { endEverythingStarted() }
    ExitSequence.addShutdownHook { endEverythingStarted() }
}

private func endEverythingStarted() {
    ChildProcess.killAllRunning()
    ScratchDirectory.removeAllExisting()
    TortureServer.stopAllRunning()
}

/// One scenario's result line, printed as `<label>: <count> <noun>, <figure>, ...`, and whether any
/// figure that must be zero was not.
struct FigureLine {
    let label: String
    var parts: [String] = []
    var failed = false

    init(_ label: String) { self.label = label }

    /// A figure that must be zero.
    mutating func mustBeZero(_ count: Int, _ noun: String) {
        parts.append("\(count) \(noun)")
        if count != 0 { failed = true }
    }

    /// A figure that describes without judging.
    mutating func info(_ text: String) { parts.append(text) }

    /// A duration as the lines print it, e.g. `4.1 s`.
    mutating func elapsed(_ duration: Duration) {
        info(String(format: "%.1f s", seconds(duration)))
    }

    func print() {
        say("\(label): " + parts.joined(separator: ", ") + (failed ? "  FAILED" : ""))
    }
}

/// The outer loop of every scenario: runs each configuration (a backend, a durability, a sample…)
/// in turn, prints its line as soon as it is ready, and tells whether every line passed. A failed
/// line does not stop the others.
///
/// ```swift
/// try runEach(["deferred", "immediate"]) { durability in try runTrials(durability: durability) }  //=> false if a line FAILED
/// ```
func runEach<Configuration>(_ configurations: [Configuration], _ run: (Configuration) throws -> FigureLine) rethrows -> Bool {
    var passed = true
    for configuration in configurations {
        let line = try run(configuration)
        line.print()
        passed = passed && !line.failed
    }
    return passed
}

/// A duration in seconds, for figures.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Writes one line to stdout at once, so a parent that kills this process knows exactly what was said.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = write(1, base + offset, buffer.count - offset)
            if written <= 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

/// Reports a harness problem on stderr.
func complain(_ message: String) {
    FileHandle.standardError.write(Data(("stored-torture: " + message + "\n").utf8))
}

/// The error of a failed call as text, and whether it names `path` so a user knows which file it is about.
func describe(_ error: any Error, naming path: String) -> (text: String, isClear: Bool) {
    let text = "\(error)"
    return (text, text.contains(path))
}

/// Runs a command-line tool (mount, chattr) and returns whether it succeeded.
@discardableResult
func runTool(_ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}
