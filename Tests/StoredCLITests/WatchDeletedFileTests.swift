import Foundation
import Testing

/// `stored watch` on a plist file that someone deletes: the removal of every key is printed,
/// as an app observing the store is told, instead of the watcher going quiet.
@Suite("watch a deleted file")
struct WatchDeletedFileTests {
    @Test("watch prints each key's removal when the plist file is deleted")
    func deletionIsPrinted() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "prefs.plist", "volume", "0.8", "--double")
        try cli.run("write", "prefs.plist", "name", "Ada")
        let process = try cli.makeProcess(["watch", "prefs.plist", "--count", "2"])
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // A safety net only: a watcher that never sees its changes is stopped so the test fails instead of
        // hanging. SIGKILL, because the test runner's children inherit a blocked SIGTERM.
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        var announcement = Data()
        while !String(decoding: announcement, as: UTF8.self).contains("Watching") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            announcement.append(chunk)
        }

        try FileManager.default.removeItem(atPath: cli.path("prefs.plist"))

        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: printed, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
        #expect(process.terminationStatus == 0)
        #expect(lines == [#"name: "Ada" -> (none) (external)"#, "volume: 0.8 -> (none) (external)"])
    }
}
