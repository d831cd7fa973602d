import Foundation
import Synchronization

extension PreferenceLayer {
    /// The layers ``PreferenceStore/standard`` reads around the user's `suite` file, the way
    /// UserDefaults does on Linux, every path under `root` (`/` unless a test points it elsewhere):
    ///
    /// 1. forced: `/etc/storedkit/forced/<suite>.plist`, a fixed system path (never taken from an
    ///    environment variable, which the user controls);
    /// 2. the launch arguments, unless `arguments` is `nil`;
    /// 3. defaults: `<dir>/<suite>.plist` for each directory of `$XDG_CONFIG_DIRS` in order
    ///    (`/etc/xdg` when unset or empty), then Foundation's "any user" file `/usr/local/etc/<suite>.plist`.
    ///
    /// ```swift
    /// let layers = PreferenceLayer.standard(suite: "com.example.app", root: testRoot, arguments: nil)
    /// let store = try PreferenceStore(.plist(at: testRoot.appending(path: "user.plist")), layers: layers)
    /// ```
    public static func standard(
        suite: String,
        root: URL = URL(filePath: "/"),
        arguments: [String]? = CommandLine.arguments,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [PreferenceLayer] {
        let file = suite + ".plist"
        func under(_ path: String) -> URL { root.appending(path: path.hasPrefix("/") ? String(path.dropFirst()) : path) }
        var layers: [PreferenceLayer] = [.forced(.plist(at: under(forcedDirectory).appending(path: file)))]
        if let arguments { layers.append(.arguments(arguments)) }
        let configDirectories = (environment["XDG_CONFIG_DIRS"] ?? "").split(separator: ":").map(String.init)
            .filter { $0.hasPrefix("/") }  // the XDG spec: relative entries are invalid and ignored
        for directory in configDirectories.isEmpty ? ["/etc/xdg"] : configDirectories {
            layers.append(.defaults(.plist(at: under(directory).appending(path: file))))
        }
        layers.append(.defaults(.plist(at: under(anyUserDirectory).appending(path: file))))
        return layers
    }

    /// Where an administrator puts a suite's forced file: `/etc/storedkit/forced/<suite>.plist`.
    static let forcedDirectory = "/etc/storedkit/forced"
    /// Foundation's "any user" preferences directory on Linux (CFKnownLocations: `/usr/local/etc`).
    static let anyUserDirectory = "/usr/local/etc"
}

extension PreferenceStore {
    private static let launchArgumentsSetting = Mutex(true)

    /// Whether the default ``standard`` store reads launch arguments (`-volume 0.3`), as UserDefaults
    /// does; `true` unless switched off. A tool whose own flags could collide (`-o out.txt`) sets it
    /// to `false` before its first use of ``standard``; later changes are not seen.
    ///
    /// ```swift
    /// PreferenceStore.readsLaunchArguments = false  // first thing in main.swift
    /// ```
    public static var readsLaunchArguments: Bool {
        get { launchArgumentsSetting.withLock { $0 } }
        set { launchArgumentsSetting.withLock { $0 = newValue } }
    }
}
