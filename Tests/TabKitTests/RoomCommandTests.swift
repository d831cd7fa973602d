import Foundation
import StoredKit
import TabKit
import Testing

/// Rooms are the user's own list of tabs (`AnyTabContent`), changed by `add-room` and `remove-room`.
@Suite("stored-demo rooms from the command line")
struct RoomCommandTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "RoomCommandTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var storePath: String { directory.appending(path: "prefs.sqlite").path }

    func demo(_ arguments: String...) throws -> (status: Int32, output: String, error: String) {
        try DemoProcess.run(["--store", storePath] + arguments)
    }

    @Test func roomsAreAddedAndRemovedAndStored() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try demo()
        #expect(first.output.contains("Rooms (rooms)\n  [x] Kitchen (room.kitchen)\n  [x] Bedroom (room.bedroom)"))

        let added = try demo("add-room", "Living", "Room")
        #expect(added.status == 0)
        #expect(added.output.contains("  [x] Bedroom (room.bedroom)\n  [x] Living Room (room.living-room)"))
        let removed = try demo("remove-room", "kitchen")
        #expect(removed.status == 0)
        #expect(!removed.output.contains("Kitchen"))

        let store = try PreferenceStore(fileAt: URL(fileURLWithPath: storePath))
        #expect(store[StoredKey<[String]>("rooms", default: [])] == ["Bedroom", "Living Room"])
    }

    @Test func aRoomRemovedAndAddedBackKeepsItsCustomization() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try demo("hide", "room.kitchen").status == 0)
        #expect(try demo("move", "room.kitchen", "--to", "categories", "--at", "0").status == 0)
        let removed = try demo("remove-room", "Kitchen")
        #expect(removed.status == 0)
        #expect(!removed.output.contains("Kitchen"))

        let back = try demo("add-room", "Kitchen")
        #expect(back.status == 0)
        #expect(back.output.contains("Categories (categories)\n  [ ] Kitchen (room.kitchen)\n  [x] Climate (climate)"))
    }

    @Test func badRoomNamesAreRefusedAndNothingIsWritten() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let duplicate = try demo("add-room", "kitchen")
        #expect(duplicate.status == 3)
        #expect(duplicate.error.contains("'Kitchen' is already a room."))
        let missing = try demo("remove-room", "Garage")
        #expect(missing.status == 3)
        #expect(missing.error.contains("No room is named 'Garage'; they are Kitchen, Bedroom."))
        let symbols = try demo("add-room", "!!!")
        #expect(symbols.status == 3)
        #expect(symbols.error.contains("'!!!' needs at least one letter or digit."))
        let long = try demo("add-room", String(repeating: "x", count: 31))
        #expect(long.status == 3)
        #expect(long.error.contains("too long: at most 30 characters"))
        let usage = try demo("add-room")
        #expect(usage.status == 2)

        let store = try PreferenceStore(fileAt: URL(fileURLWithPath: storePath))
        #expect(store.storedValue(forKey: "rooms") == nil)
    }

    @Test func aRoomListWrittenByHandIsCleanedUpWhenRead() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = #"["Kitchen", "kitchen", "!!!", "Attic"]"#
        #expect(try DemoProcess.runStored(["write", storePath, "rooms", list, "--json"]) == 0)
        let shown = try demo()
        #expect(shown.status == 0)
        #expect(shown.output.contains("Rooms (rooms)\n  [x] Kitchen (room.kitchen)\n  [x] Attic (room.attic)\n[x] Settings"))
    }

    @Test func controlCharactersInStoredNamesAreNotPrinted() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = #"["Kitchen", "Evil\u001b[2J"]"#
        #expect(try DemoProcess.runStored(["write", storePath, "rooms", list, "--json"]) == 0)
        let shown = try demo()
        #expect(shown.status == 0)
        #expect(shown.output.contains("[x] Evil?[2J (room.evil-2j)"))
        #expect(!shown.output.contains("\u{1B}"))
    }
}
