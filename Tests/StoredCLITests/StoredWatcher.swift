import Foundation
import StoredKitTestSupport

/// A started `stored watch`, its output read once it exits (or is killed by the safety net): what the
/// watch tests of every store kind share.
///
/// ```swift
/// let watcher = try StoredWatcher(["prefs.plist", "--count", "1"], cli: cli)
/// watcher.waitForError("Watching")
/// try cli.run("write", "prefs.plist", "n", "1", "--int")
/// watcher.finish()  //=> (0, ["n: (none) -> 1 (external)"])
/// ```
final class StoredWatcher {
    let process: Process
    let output = Pipe()
    let errors = Pipe()

    init(_ arguments: [String], cli: StoredProcess) throws {
        process = try cli.makeProcess(["watch"] + arguments)
        process.standardOutput = output
        process.standardError = errors
        // A watcher that never sees its changes is stopped so the test fails instead of hanging.
        try process.run(killingAfter: .seconds(60))
    }

    /// Reads stderr until `text` appears (or it ends); returns what was read.
    @discardableResult
    func waitForError(_ text: String) -> String {
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains(text) {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        return String(decoding: seen, as: UTF8.self)
    }

    /// Reads stdout until it holds `count` lines (or it ends).
    func waitForLines(_ count: Int) {
        while printed.split(separator: UInt8(ascii: "\n")).count < count {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed.append(chunk)
        }
    }

    private var printed = Data()

    func finish() -> (status: Int32, lines: [String]) {
        printed.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self).split(separator: "\n").map(String.init))
    }
}
