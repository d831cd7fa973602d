import Foundation
import StoredKit
import StoredKitTestSupport
import TabKit
import Testing

/// The administrator's forced file in `stored-demo`: the keys it holds are locked, the sidebar
/// marks them, a key on a locked thing names the file and changes nothing, and another process's
/// edit of the file redraws every open window. Driven through real pseudo-terminals.
@Suite("stored-demo, the administrator's forced file")
struct DemoForcedFileTests {
    static let down = "\u{1B}[B"
    /// Wide enough for the status line to hold a temporary directory's path whole.
    static let columns = 160

    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "DemoForcedFileTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var storePath: String { directory.appending(path: "prefs.sqlite").path }
    var forcedPath: String { directory.appending(path: "forced.plist").path }

    /// The sentence a refused key shows for `thing` ("The room list").
    func lockedMessage(_ thing: String) -> String {
        "\(thing) is locked by '\(forcedPath)'."
    }

    func demo() throws -> DemoTerminal {
        try DemoTerminal(arguments: ["--store", storePath, "--forced", forcedPath], columns: Self.columns)
    }

    /// An XML plist as an administrator writes it by hand, holding `entries` (`<key>…</key><value>`).
    static func plist(_ entries: String...) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        \(entries.joined(separator: "\n"))
        </dict>
        </plist>

        """
    }

    static func rooms(_ names: [String]) -> String {
        "<key>rooms</key><array>" + names.map { "<string>\($0)</string>" }.joined() + "</array>"
    }

    /// A sidebar customization with `tab` hidden, in the form the demo stores it.
    static func sidebar(hiding tab: String) -> String {
        """
        <key>sidebar</key><dict><key>formatVersion</key><integer>1</integer><key>sections</key><dict/>
        <key>tabs</key><dict><key>\(tab)</key><dict><key>visibility</key><string>hidden</string></dict></dict></dict>
        """
    }

    /// Runs `script` in `/bin/sh` with the forced file's path as `$1` and `text` as `$2`: another
    /// process, as an administrator's editor or configuration tool is.
    func administrator(_ script: String, _ text: String = "") throws {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", script, "sh", forcedPath, text]
        try shell.run(killingAfter: Process.safetyNet)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
    }

    /// The user's own values: the store file opened without the forced layer.
    func userValues() throws -> [String: StoredValue] {
        try PreferenceStore(fileAt: URL(fileURLWithPath: storePath)).dictionaryRepresentation()
    }

    @Test func aLockedRoomListCannotChangeAndTheMessageNamesTheFile() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let forced = Self.plist(Self.rooms(["Attic", "Cellar"]))
        try forced.write(toFile: forcedPath, atomically: true, encoding: .utf8)
        let demo = try demo()
        #expect(
            demo.waitForScreen { _ in
                demo.shows("Rooms 🔒") && demo.shows("[x] Attic") && demo.shows("'\(forcedPath)' locks the room list.")
            })
        #expect(!demo.shows("Kitchen"))

        try demo.type("a")  // no prompt: the list cannot take a room
        #expect(demo.waitForScreen { _ in demo.shows(lockedMessage("The room list")) })
        #expect(!demo.shows("New room:"))
        try demo.type(String(repeating: Self.down, count: 5) + "\r")  // Attic, opened
        #expect(demo.waitForScreen { _ in demo.shows("Opened Attic.") })
        try demo.type("d")
        #expect(demo.waitForScreen { _ in demo.shows(lockedMessage("The room list")) })
        #expect(demo.shows("[x] Attic"))
        // Only the room list is locked: the sidebar customization still changes.
        try demo.type(" ")
        #expect(demo.waitForScreen { _ in demo.shows("Attic is hidden.") && demo.shows("[ ] Attic") })
        try demo.type("q")
        #expect(demo.waitForExit() == 0)

        let user = try userValues()
        #expect(user["rooms"] == nil)
        #expect(user["selection"] != nil && user["sidebar"] != nil)
        #expect(try String(contentsOfFile: forcedPath, encoding: .utf8) == forced)
    }

    @Test func aLockedSidebarRefusesEveryCustomizationKey() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.plist(Self.sidebar(hiding: "climate")).write(toFile: forcedPath, atomically: true, encoding: .utf8)
        let demo = try demo()
        #expect(
            demo.waitForScreen { _ in demo.shows("[ ] Climate 🔒") && demo.shows("[x] Home ● 🔒") && demo.shows("[x] Reports 🔒") })
        #expect(demo.shows("[x] Settings ⊘") && !demo.shows("Settings ⊘ 🔒"))  // the app's own lock stays its own
        #expect(demo.shows("'\(forcedPath)' locks the sidebar customization."))

        try demo.type(Self.down + Self.down)  // Climate
        for key in [" ", "[", "]", "{", "}", "r", "R", "v"] {
            try demo.type("\r")  // opening is allowed, and resets the status line between keys
            #expect(demo.waitForScreen { _ in demo.shows("Opened Climate.") })
            try demo.type(key)
            #expect(demo.waitForScreen { _ in demo.shows(lockedMessage("The sidebar")) }, "key \(key)")
        }
        #expect(demo.shows("Moves    no: locked by the administrator"))
        try demo.type("q")
        #expect(demo.waitForExit() == 0)

        let user = try userValues()
        #expect(user["sidebar"] == nil)
        #expect(user["selection"] == .int(3))
    }

    @Test func theCommandsRefuseALockedKeyNamingTheFileAndWatchFollowsTheFile() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.plist(Self.rooms(["Attic"]), "<key>selection</key><integer>2</integer>")
            .write(toFile: forcedPath, atomically: true, encoding: .utf8)
        let options = ["--store", storePath, "--forced", forcedPath]
        for command in [["add-room", "Garage"], ["remove-room", "Attic"], ["select", "3"]] {
            let result = try DemoProcess.run(options + command)
            #expect(result.status == 3, "\(command)")
            #expect(result.error.contains("is locked by '\(forcedPath)'."))
        }
        let hide = try DemoProcess.run(options + ["hide", "climate"])
        #expect(hide.status == 0)
        #expect(hide.output.contains("'\(forcedPath)' locks the room list and the opened tab."))
        #expect(try userValues().keys.sorted() == ["sidebar"])

        let watch = Process()
        watch.executableURL = try DemoTerminal.demoExecutable()
        watch.arguments = options + ["watch", "--count", "1"]
        let pipe = Pipe()
        watch.standardOutput = pipe
        watch.standardInput = FileHandle.nullDevice
        try watch.run(killingAfter: .seconds(120))
        var output = ""
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        #expect(DemoWatchCommandTests.read(descriptor, into: &output) { $0.contains("[x] Attic (room.attic)") })
        try administrator(#"printf '%s' "$2" > "$1.new" && mv "$1.new" "$1""#, Self.plist(Self.rooms(["Cellar"])))
        #expect(DemoWatchCommandTests.read(descriptor, into: &output) { $0.contains("[x] Cellar (room.cellar)") })
        watch.waitUntilExit()
        #expect(watch.terminationStatus == 0)
        #expect(output.hasSuffix("locks the room list.\n"))
    }

    @Test func anEditOfTheForcedFileByAnotherProcessRedrawsBothWindows() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try demo()
        let second = try demo()
        for window in [first, second] {
            #expect(window.waitForScreen { _ in window.shows("[x] Kitchen") && window.shows("[x] Climate") })
            #expect(!window.shows("🔒"))
        }

        // Saved as a configuration tool saves: a new file renamed over the old one.
        try administrator(#"printf '%s' "$2" > "$1.new" && mv "$1.new" "$1""#, Self.plist(Self.rooms(["Attic"])))
        for window in [first, second] {
            #expect(
                window.waitForScreen { _ in
                    window.shows("Rooms 🔒") && window.shows("[x] Attic") && !window.shows("Kitchen")
                        && window.shows("From the administrator: The administrator's file '\(forcedPath)' locks the room list.")
                })
        }
        try first.type("a")
        #expect(first.waitForScreen { _ in first.shows(lockedMessage("The room list")) })
        // The locked list changed again: the administrator is the only one who can have changed it.
        try administrator(#"printf '%s' "$2" > "$1.new" && mv "$1.new" "$1""#, Self.plist(Self.rooms(["Attic", "Cellar"])))
        for window in [first, second] {
            #expect(window.waitForScreen { _ in window.shows("From the administrator: Cellar added.") })
        }

        // Edited in place, as an editor may: the sidebar is locked too, with Climate hidden.
        try administrator(#"printf '%s' "$2" > "$1""#, Self.plist(Self.rooms(["Attic"]), Self.sidebar(hiding: "climate")))
        for window in [first, second] {
            #expect(window.waitForScreen { _ in window.shows("[ ] Climate 🔒") && window.shows("Rooms 🔒") })
        }

        // Removed: nothing is locked, the user's own values are back.
        try administrator(#"rm "$1""#)
        for window in [first, second] {
            #expect(
                window.waitForScreen { _ in
                    window.shows("[x] Kitchen") && window.shows("[x] Climate") && !window.shows("🔒")
                        && window.shows("From the administrator: nothing is locked any more.")
                })
        }
        try first.type("aGarage\r")
        #expect(second.waitForScreen { _ in second.shows("[x] Garage") })
        for window in [first, second] {
            try window.type("q")
            #expect(window.waitForExit() == 0)
        }
        #expect(try userValues()["rooms"] == .array([.string("Kitchen"), .string("Bedroom"), .string("Garage")]))
    }

    @Test func aGarbledForcedFileLocksButCannotDriveTheTerminal() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // Written by another process: control characters in a room name, a sidebar that is a number.
        let garbled = Self.plist(
            "<key>rooms</key><array><string>Evil&#27;[2J&#7;</string><string></string></array>",
            "<key>sidebar</key><integer>7</integer>")
        try administrator(#"printf '%s' "$2" > "$1""#, garbled)
        let demo = try demo()
        // The room list is forced (a nameless room is skipped); the sidebar is locked, and reads
        // the user's customization because the forced value is not one.
        #expect(demo.waitForScreen { _ in demo.shows("[x] Evil?[2J?") && demo.shows("Rooms 🔒") })
        #expect(demo.shows("[x] Climate 🔒"))
        try demo.type(Self.down + Self.down + " ")
        #expect(demo.waitForScreen { _ in demo.shows(lockedMessage("The sidebar")) })
        try demo.type("q")
        #expect(demo.waitForExit() == 0)
        #expect(demo.output.filter { $0 == 0x07 }.count == 0)
        #expect(try userValues()["sidebar"] == nil)
    }

    @Test func anUnreadableForcedFileIsReportedAndLocksNothing() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try "<plist><dict><key>rooms</key>".write(toFile: forcedPath, atomically: true, encoding: .utf8)
        let demo = try demo()
        #expect(
            demo.waitForScreen { _ in
                demo.shows("From the administrator: '\(forcedPath)' cannot be read, so it locks nothing:")
            })
        #expect(demo.shows("[x] Kitchen") && !demo.shows("🔒"))
        try demo.type("q")
        #expect(demo.waitForExit() == 0)
        let added = try DemoProcess.run(["--store", storePath, "--forced", forcedPath, "add-room", "Attic"])
        #expect(added.status == 0)
        #expect(added.error.contains("stored-demo: '\(forcedPath)' cannot be read, so it locks nothing:"))
        #expect(added.output.contains("[x] Attic (room.attic)"))
    }

    /// The reader quotes the text it did not expect: from a garbled forced file, an escape
    /// sequence must reach stderr as `?`, as the screens show such characters.
    @Test func anUnreadableForcedFileCannotDriveTheTerminalThroughStderr() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try administrator(#"printf '%s' "$2" > "$1""#, "<plist><dict><key>a</key><string>b</string>\u{1B}]0;owned\u{07}")
        let added = try DemoProcess.run(["--store", storePath, "--forced", forcedPath, "add-room", "Attic"])
        #expect(added.status == 0)
        #expect(added.error.contains("'\(forcedPath)' cannot be read, so it locks nothing:"), "\(added.error)")
        #expect(added.error.contains("?]0;owned"), "\(added.error)")
        #expect(!added.error.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" })
    }

    /// A right-to-left override in a garbled forced file would reorder what the terminal shows
    /// after it: stderr gets `?`, as for a control character.
    @Test func anUnreadableForcedFilesBidirectionalOverrideReachesStderrAsAQuestionMark() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try administrator(#"printf '%s' "$2" > "$1""#, "<plist><dict><key>a</key><string>b</string>x\u{202E}y\u{2066}z")
        let added = try DemoProcess.run(["--store", storePath, "--forced", forcedPath, "add-room", "Attic"])
        #expect(added.status == 0)
        #expect(added.error.contains("x?y?z"), "\(added.error)")
        #expect(!added.error.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{2066}" })
    }

    @Test func withoutTheStandardForcedFileTheDemoRunsAsUsual() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let help = try DemoProcess.run(["help"])
        #expect(help.output.contains("--forced FILE") && help.output.contains("/etc/storedkit/forced/stored-demo.plist"))
        // No --forced: the standard path, which need not exist (nor /etc/storedkit): nothing is locked.
        let added = try DemoProcess.run(["--store", storePath, "add-room", "Attic"])
        #expect(added.status == 0)
        #expect(added.output.contains("[x] Attic (room.attic)") && !added.output.contains("locks"))
    }
}
