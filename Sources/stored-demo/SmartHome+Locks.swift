import Foundation
import StoredKit
import TabKit

/// What an administrator locked: the demo's keys that the forced file holds, each with the file
/// that forces it. A forced key is read from that file and every write of it is refused.
///
/// ```swift
/// app.locks.rooms  //=> "/etc/storedkit/forced/stored-demo.plist" (the room list is locked)
/// app.locks.sidebar  //=> nil (the sidebar can be customized)
/// ```
struct DemoLocks: Equatable {
    /// The file that forces the sidebar customization as a whole.
    var sidebar: String?
    /// The file that forces the room list.
    var rooms: String?
    /// The file that forces the opened tab.
    var selection: String?

    var isEmpty: Bool { sidebar == nil && rooms == nil && selection == nil }

    /// One sentence naming what is locked and by which file, or `nil` when nothing is.
    ///
    /// ```swift
    /// DemoLocks(rooms: "/etc/f.plist").summary  //=> "The administrator's file '/etc/f.plist' locks the room list."
    /// ```
    var summary: String? {
        let locked = [(sidebar, StoredKeys.sidebar.name), (rooms, StoredKeys.rooms.name), (selection, StoredKeys.selection.name)]
            .compactMap { file, key in file.map { (file: $0, thing: SmartHome.lockedThing(key)) } }
        guard let file = locked.first?.file else { return nil }
        if Set(locked.map(\.file)).count == 1 {
            return "The administrator's file '\(DemoCommand.displayPath(of: file))' locks \(Self.list(locked.map(\.thing)))."
        }
        let each = locked.map { "\($0.thing) ('\(DemoCommand.displayPath(of: $0.file))')" }
        return "The administrator's files lock \(Self.list(each))."
    }

    /// `a`, `a and b`, `a, b and c`.
    private static func list(_ items: [String]) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }
}

extension DemoCommand {
    /// `path` as the title line shows it (`~` for the home directory).
    static func displayPath(of path: String) -> String {
        displayPath(of: URL(fileURLWithPath: path))
    }
}

extension SmartHome {
    /// Opens the store file at `url` (SQLite or plist, by its name or content) under the
    /// administrator's forced file `forcedFile`, which need not exist: missing, it locks nothing,
    /// and it is watched, so an administrator's edit reaches every open window.
    ///
    /// ```swift
    /// let store = try SmartHome.openStore(at: storeURL, forcedFile: URL(fileURLWithPath: DemoCommand.standardForcedPath))
    /// ```
    static func openStore(at url: URL, forcedFile: URL, corruption: CorruptionPolicy) throws -> PreferenceStore {
        let layers: [PreferenceLayer] = [.forced(.plist(at: forcedFile))]
        switch StoreFileFormat(detecting: url) ?? .plist {
        case .plist:
            let format = PlistFormat(ofFileAt: url.path)
            return try PreferenceStore(.plist(at: url, format: format, corruption: corruption), layers: layers)
        case .sqlite:
            return try PreferenceStore(.sqlite(at: url, corruption: corruption), layers: layers)
        }
    }

    /// What the forced file locks now.
    var locks: DemoLocks {
        DemoLocks(
            sidebar: forcedFile(of: StoredKeys.sidebar.name), rooms: forcedFile(of: StoredKeys.rooms.name),
            selection: forcedFile(of: StoredKeys.selection.name))
    }

    /// The file that forces `key`, or `nil` when the user may change it.
    func forcedFile(of key: String) -> String? {
        if case .forced(let location) = store.source(forKey: key) { return location }
        return nil
    }

    /// The sentence a refused change of a locked key shows, naming the file; short enough for an
    /// 80-column status line with the standard path. Nothing was written when it shows.
    ///
    /// ```swift
    /// SmartHome.lockedMessage(key: "sidebar", file: "/etc/storedkit/forced/stored-demo.plist")
    /// //=> "The sidebar is locked by '/etc/storedkit/forced/stored-demo.plist'."
    /// ```
    static func lockedMessage(key: String, file: String) -> String {
        let thing = key == StoredKeys.sidebar.name ? "the sidebar" : lockedThing(key)
        return thing.prefix(1).uppercased() + thing.dropFirst() + " is locked by '\(DemoCommand.displayPath(of: file))'."
    }

    /// What a key is, in the words of the status line.
    static func lockedThing(_ key: String) -> String {
        switch key {
        case StoredKeys.sidebar.name: "the sidebar customization"
        case StoredKeys.rooms.name: "the room list"
        case StoredKeys.selection.name: "the opened tab"
        default: "'\(key)'"
        }
    }

    /// What a key is, in a sentence about a change of it the server did not take.
    ///
    /// ```swift
    /// SmartHome.syncedThing("sidebar")  //=> "the sidebar"
    /// ```
    static func syncedThing(_ key: String) -> String {
        key == StoredKeys.sidebar.name ? "the sidebar" : lockedThing(key)
    }

    /// Throws ``DemoError/refused(_:)`` naming the forced file when `key` is locked.
    func requireUnlocked(_ key: String) throws {
        if let file = forcedFile(of: key) { throw DemoError.refused(Self.lockedMessage(key: key, file: file)) }
    }

    /// `store.update(key)` refused up front when the key is locked, and with the same sentence when
    /// the administrator locked it in between (the store then throws ``StoreError/forced(key:source:)``).
    ///
    /// ```swift
    /// try app.update(.rooms) { $0.append("Attic") }  // throws DemoError.refused("The room list is locked by ...")
    /// ```
    @discardableResult
    func update<Value>(_ key: StoredKey<Value>, _ transform: (inout Value) throws -> Void) throws -> Value {
        try requireUnlocked(key.name)
        do {
            return try store.update(key, transform)
        } catch StoreError.forced(let key, .forced(let file)) {
            throw DemoError.refused(Self.lockedMessage(key: key, file: file))
        }
    }

    /// Opens the tab with `value`, refused when the opened tab is locked (a plain set would be
    /// refused silently, reported only on the store's diagnostics).
    func select(_ value: Int) throws {
        try requireUnlocked(StoredKeys.selection.name)
        selection = value
    }
}
