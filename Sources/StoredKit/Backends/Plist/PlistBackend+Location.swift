import Foundation

extension Backend where Self == PlistBackend {
    /// A plist file at `url`.
    ///
    /// ```swift
    /// let store = try PreferenceStore(.plist(at: URL(fileURLWithPath: "/tmp/app.plist"), format: .binary))
    /// ```
    public static func plist(
        at url: URL, format: PlistFormat = .xml, corruption: CorruptionPolicy = .quarantine
    ) -> PlistBackend {
        PlistBackend(at: url, format: format, corruption: corruption)
    }

    /// The plist file of a UserDefaults suite, where Foundation on Linux keeps it:
    /// `$XDG_CONFIG_HOME/<suite>.plist`, or `~/.config/<suite>.plist` when that is unset.
    ///
    /// ```swift
    /// let store = try PreferenceStore(.plist(suite: "com.example.app"))
    /// // file: ~/.config/com.example.app.plist, shared with UserDefaults(suiteName: "com.example.app")
    /// ```
    public static func plist(
        suite: String, format: PlistFormat = .xml, corruption: CorruptionPolicy = .quarantine
    ) -> PlistBackend {
        PlistBackend(at: PlistBackend.fileURL(forSuite: suite), format: format, corruption: corruption)
    }
}

extension PlistBackend {
    /// The file of a UserDefaults suite. Like Foundation, an `XDG_CONFIG_HOME` that is empty or
    /// not absolute is ignored in favour of `$HOME/.config`, and a suite name that is an absolute
    /// path names the file itself (`<suite>.plist`).
    ///
    /// ```swift
    /// PlistBackend.fileURL(forSuite: "com.example.app").path  //=> "/home/me/.config/com.example.app.plist"
    /// PlistBackend.fileURL(forSuite: "/tmp/legacy").path  //=> "/tmp/legacy.plist"
    /// ```
    public static func fileURL(
        forSuite suite: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if suite.hasPrefix("/") { return URL(fileURLWithPath: suite + ".plist", isDirectory: false) }
        return configDirectory(environment: environment).appendingPathComponent(suite + ".plist", isDirectory: false)
    }

    /// The suite name Foundation uses for `UserDefaults.standard`: the main bundle's identifier
    /// when there is one, otherwise the executable's name.
    ///
    /// ```swift
    /// PlistBackend.defaultSuiteName()  //=> "my-tool" (for /usr/local/bin/my-tool)
    /// ```
    public static func defaultSuiteName() -> String {
        if let identifier = Bundle.main.bundleIdentifier, !identifier.isEmpty { return identifier }
        return ProcessInfo.processInfo.processName
    }

    private static func configDirectory(environment: [String: String]) -> URL {
        if let configHome = environment["XDG_CONFIG_HOME"], configHome.hasPrefix("/") {
            return URL(fileURLWithPath: configHome, isDirectory: true)
        }
        // Foundation writes to "/.config" when HOME is unset; the account's home is the better guess.
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".config", isDirectory: true)
    }
}
