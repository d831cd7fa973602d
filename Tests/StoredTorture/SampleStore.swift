import Foundation
import StoredKit

/// The stores the corruption scenario damages: one of each file format, holding every kind of value.
enum SampleStore: String, CaseIterable {
    case plistXML = "plist-xml"
    case plistBinary = "plist-binary"
    case sqlite

    var fileName: String { self == .sqlite ? "prefs.sqlite" : "prefs.plist" }

    /// Every kind of ``StoredValue``, nested as a real app's settings are.
    static let values: [String: StoredValue] = [
        "launchCount": .int(42),
        "negative": .int(-7),
        "huge": .uint(.max),
        "volume": .double(0.75),
        "enabled": .bool(true),
        "nickname": .string("Zoë 🎛 <&> \"quoted\""),
        "lastOpened": .date(Date(timeIntervalSince1970: 1_700_000_000)),
        "avatar": .data(Data((0..<64).map { UInt8($0 * 3 % 256) })),
        "recent": .array([.string("alpha"), .string("beta"), .int(3)]),
        "sidebar": .dictionary([
            "order": .array([.string("home"), .string("rooms"), .string("scenes")]),
            "hidden": .dictionary(["energy": .bool(true)]),
            "zoom": .double(1.25),
        ]),
    ]

    /// Writes the sample to `path` through StoredKit and returns the file's bytes.
    func create(at path: String) throws -> Data {
        let url = URL(fileURLWithPath: path)
        do {
            let store: PreferenceStore
            switch self {
            case .plistXML: store = try PreferenceStore(.plist(at: url, format: .xml))
            case .plistBinary: store = try PreferenceStore(.plist(at: url, format: .binary))
            case .sqlite: store = try PreferenceStore(.sqlite(at: url))
            }
            for (key, value) in Self.values { store.setStoredValue(value, forKey: key) }
            try store.flush()
        }
        // The store was released: SQLite checkpointed its log into the file and removed it.
        if FileManager.default.fileExists(atPath: path + "-wal") {
            throw TortureError("the SQLite sample still has a write-ahead log; its file alone is not the store")
        }
        return try Data(contentsOf: url)
    }
}
