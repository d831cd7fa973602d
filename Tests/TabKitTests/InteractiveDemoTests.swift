import Foundation
import Glibc
import StoredKit
import StoredKitTestSupport
import TabKit
import Testing

/// The interactive `stored-demo`, driven through a real pseudo-terminal: keys change the stored
/// customization, other windows follow, and the terminal is given back on every way out.
@Suite("stored-demo, interactive")
struct InteractiveDemoTests {
    static let sidebarKey = StoredKey<TabViewCustomization>("sidebar", default: TabViewCustomization())
    static let roomsKey = StoredKey<[String]>("rooms", default: ["Kitchen", "Bedroom"])
    static let up = "\u{1B}[A"
    static let down = "\u{1B}[B"

    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "InteractiveDemoTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var storePath: String { directory.appending(path: "prefs.sqlite").path }

    func stored() throws -> (customization: TabViewCustomization, rooms: [String]) {
        let store = try PreferenceStore(fileAt: URL(fileURLWithPath: storePath))
        return (store[Self.sidebarKey], store[Self.roomsKey])
    }

    @Test func keysHideMoveAddAndRemoveAndTheStoreKeepsIt() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        let modesBefore = demo.modes
        #expect(demo.waitForScreen { $0.contains { $0.contains("▸ [x] Home") } })

        try demo.type(Self.down + Self.down + " ")  // Climate, hidden
        #expect(demo.waitForScreen { _ in demo.shows("[ ] Climate") })

        try demo.type(Self.down + "[")  // Lights, moved above Climate
        #expect(demo.waitForScreen { _ in (demo.row(of: "Lights") ?? .max) < (demo.row(of: "Climate") ?? 0) })

        try demo.type("jjj{")  // Climate, Security, Kitchen; the Rooms section moves above Categories
        #expect(demo.waitForScreen { _ in (demo.row(of: "   Rooms") ?? .max) < (demo.row(of: "   Categories") ?? 0) })

        try demo.type("zZ\u{1B}[15~\u{07}%")  // unknown keys and an unknown escape sequence: ignored
        try demo.type("aNope")
        #expect(demo.waitForScreen { _ in demo.shows("New room: Nope") })
        try demo.type("\u{1B}")  // Escape: no room
        #expect(demo.waitForScreen { _ in demo.shows("No room added.") })
        try demo.type("aGarx\u{7F}\u{7F}rage\r")  // Backspace erases
        #expect(demo.waitForScreen { _ in demo.shows("[x] Garage") })

        try demo.type("kd")  // up from Garage to Bedroom, removed
        #expect(demo.waitForScreen { _ in !demo.shows("] Bedroom") && demo.shows("Removed Bedroom") })

        try demo.type("q")
        #expect(demo.waitForExit() == 0)
        #expect(demo.modes == modesBefore)

        var expected = TabViewCustomization()
        expected[tab: "climate"].sidebarVisibility = .hidden
        expected[section: "categories"].tabOrder = ["lights", "climate", "security"]
        expected.sectionOrder = ["rooms", "categories"]
        let (customization, rooms) = try stored()
        #expect(customization == expected)
        #expect(rooms == ["Kitchen", "Garage"])

        // Start again: it is as it was left.
        let again = try DemoTerminal(arguments: ["--store", storePath])
        #expect(again.waitForScreen { _ in again.shows("[ ] Climate") && again.shows("[x] Garage") })
        #expect(!again.shows("] Bedroom"))
        #expect((again.row(of: "   Rooms") ?? .max) < (again.row(of: "   Categories") ?? 0))
        try again.type("q")
        #expect(again.waitForExit() == 0)
    }

    @Test func aTabMovesAcrossASectionBoundary() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        #expect(demo.waitForScreen { _ in demo.shows("▸ [x] Home") })
        try demo.type("jjjj]")  // Security, the last of Categories, goes to the top of Rooms
        #expect(demo.waitForScreen { _ in demo.shows("Moved Security to Rooms.") })
        #expect((demo.row(of: "   Rooms") ?? .max) < (demo.row(of: "Security") ?? 0))
        try demo.type("\u{1B}[1;2A")  // Shift-Up: back to the end of Categories
        #expect(demo.waitForScreen { _ in demo.shows("Moved Security to Categories.") })
        #expect((demo.row(of: "Security") ?? .max) < (demo.row(of: "   Rooms") ?? 0))
        try demo.type("[[[")  // to the top of Categories, then refused
        #expect(demo.waitForScreen { _ in demo.shows("Security is already at the top.") })
        try demo.type("\u{1B}[1;3B")  // Alt-Down: Categories below Rooms
        #expect(demo.waitForScreen { _ in demo.shows("Moved the Categories section down.") })
        try demo.type("q")
        #expect(demo.waitForExit() == 0)

        var expected = TabViewCustomization()
        expected[section: "categories"].tabOrder = ["security", "climate", "lights"]
        expected[section: "rooms"].tabOrder = ["room.kitchen", "room.bedroom"]
        expected.sectionOrder = ["rooms", "categories"]
        #expect(try stored().customization == expected)
    }

    @Test func controlCharactersInStoredTextAreNotSentToTheTerminal() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = #"["Kitchen", "Evil\u001b[2J\u0007"]"#
        #expect(try DemoProcess.runStored(["write", storePath, "rooms", list, "--json"]) == 0)
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        #expect(demo.waitForScreen { _ in demo.shows("[x] Evil?[2J?") })
        try demo.type("q")
        #expect(demo.waitForExit() == 0)
        let bells = demo.output.filter { $0 == 0x07 }.count
        #expect(bells == 0)
    }

    @Test func wideCharactersKeepTheColumnsAligned() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try DemoProcess.run(["--store", storePath, "add-room", "日本の部屋"]).status == 0)
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        #expect(demo.waitForScreen { _ in demo.shows("[x] 日本の部屋") })
        // Each of the five ideographs takes two columns: the separator stays in column 31.
        func separatorColumn(_ row: String) -> Int? {
            guard let index = row.firstIndex(of: "│") else { return nil }
            return row[..<index].reduce(0) { $0 + (("\u{3000}"..."\u{9FFF}").contains($1) ? 2 : 1) }
        }
        let columns = Set(demo.screen.compactMap(separatorColumn))
        #expect(columns == [30])
        try demo.type("q")
        #expect(demo.waitForExit() == 0)
    }

    @Test func aLongSidebarScrollsWithTheCursor() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        for number in 1...15 {
            #expect(try DemoProcess.run(["--store", storePath, "add-room", "Room \(number)"]).status == 0)
        }
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        // 25 rows for 19 lines: the last 6 rows and the one under the marker are out of view.
        #expect(demo.waitForScreen { _ in demo.shows("▸ [x] Home") && demo.shows("↓ 7 more") })
        #expect(!demo.shows("Settings"))
        try demo.type(String(repeating: "j", count: 22))  // down to Settings, the last tab
        #expect(demo.waitForScreen { _ in demo.shows("▸ [x] Settings") && demo.shows("↑ 7 more") })
        #expect(!demo.shows("↓ 7 more"))
        try demo.type("q")
        #expect(demo.waitForExit() == 0)
    }

    @Test func tabsThatCannotBeCustomizedSaySo() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        #expect(demo.waitForScreen { _ in demo.shows("▸ [x] Home") })
        try demo.type("[")
        #expect(demo.waitForScreen { _ in demo.shows("Home cannot be moved: tabs outside a section keep their place.") })
        try demo.type(String(repeating: Self.down, count: 7))  // down to Settings, the last row
        #expect(demo.waitForScreen { _ in demo.shows("▸ [x] Settings") })
        try demo.type(" ")
        #expect(demo.waitForScreen { _ in demo.shows("Settings cannot be hidden: its customization is disabled.") })
        try demo.type("{")
        #expect(demo.waitForScreen { _ in demo.shows("Settings is not in a section") })
        try demo.type("d")
        #expect(demo.waitForScreen { _ in demo.shows("Settings is part of the app; only rooms can be removed") })
        try demo.type("q")
        #expect(demo.waitForExit() == 0)
        #expect(try stored().customization == TabViewCustomization())
    }

    @Test func theResetKeysUndoOrderAndVisibility() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        #expect(demo.waitForScreen { _ in demo.shows("▸ [x] Home") })
        try demo.type(" jjj[")  // Home hidden; Lights above Climate
        #expect(demo.waitForScreen { _ in demo.shows("Moved Lights up.") })
        try demo.type("}")  // Categories below Rooms
        #expect(demo.waitForScreen { _ in demo.shows("Moved the Categories section down.") })
        #expect(try stored().customization.sectionOrder == ["rooms", "categories"])

        try demo.type("r")
        #expect(demo.waitForScreen { _ in demo.shows("The Categories tabs are back in the app's order.") })
        #expect(try stored().customization[section: "categories"].tabOrder == nil)
        try demo.type("R")
        #expect(demo.waitForScreen { _ in demo.shows("Every section and tab is back in the app's order.") })
        #expect(try stored().customization.sectionOrder == nil)
        #expect(try stored().customization[tab: "home"].sidebarVisibility == .hidden)
        try demo.type("v")
        #expect(demo.waitForScreen { _ in demo.shows("[x] Home") })
        try demo.type("q")
        #expect(demo.waitForExit() == 0)
        #expect(try stored().customization == TabViewCustomization())
    }

    @Test func anOpenedRoomKeepsItsValueAcrossReordersAndRestarts() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        #expect(demo.waitForScreen { _ in demo.shows("▸ [x] Home") })
        try demo.type("jjjjj\r")  // Kitchen, opened
        #expect(demo.waitForScreen { _ in demo.shows("Opened Kitchen.") && demo.shows("room.kitchen") })
        let value = try #require(demo.screen.first { $0.contains("Value ") }?.split(separator: " ").last.map(String.init))
        try demo.type("]")  // below Bedroom: a new index, the same value
        #expect(demo.waitForScreen { _ in demo.shows("Moved Kitchen down.") })
        #expect(demo.shows("Value    \(value)"))
        try demo.type("q")
        #expect(demo.waitForExit() == 0)
        let store = try PreferenceStore(fileAt: URL(fileURLWithPath: storePath))
        #expect(store[StoredKey<Int>("selection", default: 1)] == Int(value))

        let again = try DemoTerminal(arguments: ["--store", storePath])
        #expect(again.waitForScreen { _ in again.shows("room.kitchen") && again.shows("Value    \(value)") })
        try again.type("q")
        #expect(again.waitForExit() == 0)
    }

    @Test func aClosedTerminalEndsTheDemo() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        #expect(demo.waitForScreen { _ in demo.shows("[x] Home") })
        demo.hangUp()
        // The harness reads no descriptor it closed: the number is soon another test's terminal,
        // and reading it stole that test's frames and keys (tests waited for screens that came).
        #expect(demo.master == -1 && demo.screenMaster == -1)
        #expect(demo.waitForExit() == 128 + SIGHUP)
    }

    @Test(arguments: ["prefs.sqlite", "prefs.plist"])
    func aSecondWindowAndAThirdShellShowUpInTheFirst(fileName: String) throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let storePath = directory.appending(path: fileName).path
        let first = try DemoTerminal(arguments: ["--store", storePath])
        let second = try DemoTerminal(arguments: ["--store", storePath])
        #expect(first.waitForScreen { _ in first.shows("[x] Climate") })
        #expect(second.waitForScreen { _ in second.shows("[x] Climate") })

        try first.type(Self.down + Self.down + " ")
        #expect(
            second.waitForScreen { _ in second.shows("[ ] Climate") && second.shows("From another process: Climate hidden.") })

        let shell = Process()
        shell.executableURL = try DemoTerminal.demoExecutable()
        shell.arguments = ["--store", storePath, "hide", "reports"]
        shell.standardOutput = FileHandle.nullDevice
        try shell.run(killingAfter: Process.safetyNet)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        #expect(first.waitForScreen { _ in first.shows("[ ] Reports") && first.shows("From another process: Reports hidden.") })
        #expect(second.waitForScreen { _ in second.shows("[ ] Reports") })

        // The inspection CLI writes the room list as JSON; then a value that is not a list.
        #expect(try DemoProcess.runStored(["write", storePath, "rooms", #"["Kitchen", "Bedroom", "Attic"]"#, "--json"]) == 0)
        #expect(first.waitForScreen { _ in first.shows("[x] Attic") && first.shows("From another process: Attic added.") })
        #expect(try DemoProcess.runStored(["write", storePath, "rooms", "not a list"]) == 0)
        #expect(first.waitForScreen { _ in !first.shows("[x] Attic") && first.shows("[x] Kitchen") })  // the default list

        for demo in [first, second] {
            try demo.type("q")
            #expect(demo.waitForExit() == 0)
        }
    }

    @Test(arguments: [SIGTERM, SIGHUP, SIGINT])
    func aSignalRestoresTheTerminal(signal: Int32) throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        let modesBefore = demo.modes
        #expect(demo.waitForScreen { _ in demo.shows("[x] Home") })
        #expect(demo.modes != modesBefore)  // raw while it runs

        demo.send(signal: signal)
        #expect(demo.waitForExit() == 128 + signal)
        #expect(demo.modes == modesBefore)
        #expect(demo.output.ends(with: Array("\u{1B}[?1049l".utf8)))  // back on the normal screen, last
    }

    @Test func controlCQuitsAndRestoresTheTerminal() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        let modesBefore = demo.modes
        #expect(demo.waitForScreen { _ in demo.shows("[x] Home") })
        try demo.type("\u{03}")
        #expect(demo.waitForExit() == 130)
        #expect(demo.modes == modesBefore)
    }

    @Test func anErrorWhileRunningRestoresTheTerminal() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try DemoTerminal(arguments: ["--store", storePath], screenOnSecondTerminal: true)
        let modesBefore = demo.modes
        #expect(demo.waitForScreen { _ in demo.shows("[x] Home") })
        demo.hangUpScreen()
        try demo.type(" ")  // the redraw cannot be written
        #expect(demo.waitForExit() == 1)
        #expect(demo.modes == modesBefore)
        let message = String(decoding: demo.inputSideOutput, as: UTF8.self)
        #expect(message.contains("stored-demo: write to the terminal failed"))
    }

    @Test func aCorruptStoreIsReportedAndTheTerminalLeftAlone() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbage = Data("SQLite format 3\u{0}this is not a database, only a test's garbage".utf8)
        try garbage.write(to: URL(fileURLWithPath: storePath))
        let demo = try DemoTerminal(arguments: ["--store", storePath])
        let modesBefore = demo.modes
        let status = demo.waitForExit()
        #expect(status != nil && status != 0)
        let text = String(decoding: demo.output, as: UTF8.self)
        #expect(text.contains(storePath))
        #expect(!text.contains("\u{1B}[?1049h"))  // never took the screen over
        #expect(demo.modes == modesBefore)
        #expect(try Data(contentsOf: URL(fileURLWithPath: storePath)) == garbage)  // left as it was
    }

    @Test func aStoreThatCannotBeOpenedIsReported() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "a-file")
        try Data("x".utf8).write(to: file)
        let path = file.appending(path: "prefs.sqlite").path  // under a regular file
        let demo = try DemoTerminal(arguments: ["--store", path])
        let modesBefore = demo.modes
        let status = demo.waitForExit()
        #expect(status != nil && status != 0)
        let text = String(decoding: demo.output, as: UTF8.self)
        #expect(text.contains("stored-demo:") && text.contains("a-file"))
        #expect(!text.contains("\u{1B}[?1049h"))
        #expect(demo.modes == modesBefore)
    }

    @Test func aSmallTerminalSaysSoUntilItIsEnlarged() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try DemoTerminal(arguments: ["--store", storePath], columns: 60, rows: 20)
        #expect(demo.waitForScreen { _ in demo.shows("needs at least 80×24") && demo.shows("this terminal is 60×20") })
        demo.resize(columns: 100, rows: 30)
        #expect(demo.waitForScreen { _ in demo.shows("[x] Home") })
        #expect(demo.screen.count == 30)
        try demo.type("q")
        #expect(demo.waitForExit() == 0)
    }

    @Test func noColorAndAnASCIILocaleGiveAPlainASCIIScreen() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try DemoTerminal(
            arguments: ["--store", storePath], environment: ["TERM": "xterm", "LANG": "C", "NO_COLOR": "1"])
        #expect(demo.waitForScreen { _ in demo.shows("> [x] Home") })
        try demo.type("q")
        #expect(demo.waitForExit() == 0)
        #expect(demo.output.allSatisfy { $0 < 0x80 })
        let text = String(decoding: demo.output, as: UTF8.self)
        #expect(text.contains("\u{1B}[0;7m"))  // the cursor row in reverse video, which is not a colour
        #expect(!text.contains(";3"))  // no foreground colour anywhere
    }
}

extension [UInt8] {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
