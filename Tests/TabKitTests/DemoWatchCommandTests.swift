import Foundation
import Glibc
import StoredKitTestSupport
import Testing

/// `stored-demo watch` in a pipeline: what a script reads as the sidebar changes elsewhere.
@Suite("stored-demo watch")
struct DemoWatchCommandTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "DemoWatchCommandTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    @Test func aPipeGetsEachRenderAsItHappensRoomsIncluded() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let storePath = directory.appending(path: "prefs.sqlite").path
        let watch = Process()
        watch.executableURL = try DemoTerminal.demoExecutable()
        watch.arguments = ["--store", storePath, "watch", "--count", "1"]
        let pipe = Pipe()
        watch.standardOutput = pipe
        watch.standardInput = FileHandle.nullDevice
        // Killed if it never sees the change it waits for, so the test fails instead of hanging.
        try watch.run(killingAfter: .seconds(120))
        var output = ""
        let descriptor = pipe.fileHandleForReading.fileDescriptor

        // The first render arrives while watch is still running, not when it exits.
        #expect(Self.read(descriptor, into: &output) { $0.contains("Selected: Home") })
        #expect(try DemoProcess.run(["--store", storePath, "add-room", "Attic"]).status == 0)
        #expect(Self.read(descriptor, into: &output) { $0.contains("[x] Attic (room.attic)") })
        watch.waitUntilExit()
        #expect(watch.terminationStatus == 0)
    }

    @Test func aRoomAddedUnderAForcedRoomListThatDoesNotDecodeRendersAgain() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let storePath = directory.appending(path: "prefs.sqlite").path
        let forcedPath = directory.appending(path: "forced.plist").path
        // An administrator's slip: a string where the room list goes. It locks the key, but reads
        // fall through to the user's own list, so a change of that list is what the sidebar shows.
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>rooms</key><string>Attic</string></dict></plist>

        """.write(toFile: forcedPath, atomically: true, encoding: .utf8)
        let watch = Process()
        watch.executableURL = try DemoTerminal.demoExecutable()
        watch.arguments = ["--store", storePath, "--forced", forcedPath, "watch", "--count", "1"]
        let pipe = Pipe()
        watch.standardOutput = pipe
        watch.standardInput = FileHandle.nullDevice
        try watch.run(killingAfter: .seconds(120))
        var output = ""
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        #expect(Self.read(descriptor, into: &output) { $0.contains("Selected: Home") })
        // Another copy of the app, without the administrator's file, adds a room to the user's list.
        let other = ["--store", storePath, "--forced", directory.appending(path: "none.plist").path, "add-room", "Cellar"]
        #expect(try DemoProcess.run(other).status == 0)
        #expect(Self.read(descriptor, into: &output) { $0.contains("[x] Cellar (room.cellar)") })
        watch.waitUntilExit()
        #expect(watch.terminationStatus == 0)
    }

    /// Reads from `descriptor` until `condition` holds for what was read, the pipe ends, or 60 s pass.
    static func read(_ descriptor: Int32, into output: inout String, until condition: (String) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(output), ContinuousClock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            output += String(decoding: buffer.prefix(count), as: UTF8.self)
        }
        return condition(output)
    }
}
