import Foundation
import StoredKit
import StoredKitTestSupport

// Runs one operation of the encode and Codable-write scenarios COUNT times, for
// Scripts/instruction-counts.sh to count its instructions under callgrind: a figure that does
// not move with the load of a shared machine, where wall times do by a third.
//
//   instruction-counts OPERATION COUNT
//
// OPERATION: encode.20-tab, encode.settings, json.20-tab, json.settings,
// decode.20-tab, json-decode.20-tab, set.20-tab.plist, set.20-tab.sqlite (a changing deferred
// `set`, then one flush).

enum Operation: String, CaseIterable {
    case encodeTabs = "encode.20-tab", encodeSettings = "encode.settings"
    case jsonTabs = "json.20-tab", jsonSettings = "json.settings"
    case decodeTabs = "decode.20-tab", jsonDecodeTabs = "json-decode.20-tab"
    case setPlist = "set.20-tab.plist", setSQLite = "set.20-tab.sqlite"
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let operation = Operation(rawValue: arguments[1]), let count = Int(arguments[2]), count > 0
else {
    let names = Operation.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("usage: instruction-counts OPERATION COUNT\n  OPERATION: \(names)\n".utf8))
    exit(64)
}

let tabs = [SidebarCustomization.twentyTabs(revision: 1), .twentyTabs(revision: 2)]
let settings = SettingsFixture.sample(revision: 1)
var sink = 0

switch operation {
case .encodeTabs:
    for _ in 0..<count { if case .dictionary(let entries) = try StoredValueEncoder().encode(tabs[0]) { sink &+= entries.count } }
case .encodeSettings:
    for _ in 0..<count { if case .dictionary(let entries) = try StoredValueEncoder().encode(settings) { sink &+= entries.count } }
case .jsonTabs:
    for _ in 0..<count { sink &+= try JSONEncoder().encode(tabs[0]).count }
case .jsonSettings:
    for _ in 0..<count { sink &+= try JSONEncoder().encode(settings).count }
case .decodeTabs:
    let stored = try StoredValueEncoder().encode(tabs[0])
    for _ in 0..<count { sink &+= try StoredValueDecoder().decode(SidebarCustomization.self, from: stored).revision }
case .jsonDecodeTabs:
    let json = try JSONEncoder().encode(tabs[0])
    for _ in 0..<count { sink &+= try JSONDecoder().decode(SidebarCustomization.self, from: json).revision }
case .setPlist, .setSQLite:
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("instruction-counts-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store =
        operation == .setPlist
        ? try PreferenceStore(.plist(at: directory.appendingPathComponent("prefs.plist")))
        : try PreferenceStore(.sqlite(at: directory.appendingPathComponent("prefs.sqlite")))
    for index in 0..<count { store.set(tabs[index & 1], forKey: "value") }
    try store.flush()
    sink = store.keys.count
}
print(operation.rawValue, count, sink)
