import Foundation

/// A value shaped unlike the 20-tab one: an app's settings screen, mostly scalar properties
/// (numbers, flags, strings), enums, dates, optionals both set and unset, and a short array of
/// small structs (accounts).
///
/// ```swift
/// let value = SettingsFixture.sample(revision: 1)
/// value.accounts.count  //=> 6
/// ```
struct SettingsFixture: Codable, Equatable, Sendable {
    enum Theme: String, Codable, Sendable { case light, dark, system }
    enum Density: Int, Codable, Sendable { case compact = 1, regular = 2, spacious = 3 }

    struct Account: Codable, Equatable, Sendable {
        var id: Int
        var name: String
        var email: String
        var isPrimary: Bool
        var lastSync: Date?
        var quotaBytes: Int64
    }

    var theme: Theme
    var density: Density
    var accentHue: Double
    var fontScale: Float
    var showsSidebar: Bool
    var showsStatusBar: Bool
    var autosaveInterval: Int
    var maximumRecentItems: Int
    var language: String
    var region: String?
    var timeZone: String?
    var lastOpened: Date
    var lastUpdateCheck: Date?
    var downloadsFolder: String
    var confirmsBeforeQuit: Bool
    var telemetryLevel: UInt8
    var proxyPort: Int?
    var nickname: String?
    var accounts: [Account]

    /// `revision` changes values, not the shape.
    static func sample(revision: Int) -> SettingsFixture {
        let start = Date(timeIntervalSinceReferenceDate: 780_000_000 + Double(revision) * 3_600)
        return SettingsFixture(
            theme: [.light, .dark, .system][revision % 3], density: .regular, accentHue: 0.58 + Double(revision) / 100,
            fontScale: 1.25, showsSidebar: true, showsStatusBar: revision % 2 == 0, autosaveInterval: 30 + revision,
            maximumRecentItems: 20, language: "en-GB", region: "GB", timeZone: nil, lastOpened: start,
            lastUpdateCheck: revision % 2 == 0 ? start : nil, downloadsFolder: "/home/user/Downloads",
            confirmsBeforeQuit: false, telemetryLevel: 2, proxyPort: nil, nickname: "ada",
            accounts: (0..<6).map { index in
                Account(
                    id: 1_000 + index, name: "Account \(index)", email: "user\(index)@example.com", isPrimary: index == 0,
                    lastSync: index % 3 == 2 ? nil : start.addingTimeInterval(Double(-index * 60)),
                    quotaBytes: Int64(index + 1) << 30)
            })
    }
}
