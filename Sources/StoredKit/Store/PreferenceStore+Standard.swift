import Synchronization

extension PreferenceStore {
    private static let standardStore = Mutex<PreferenceStore?>(nil)

    /// The process-wide default store, used by ``Stored`` when no store is given.
    ///
    /// By default it is the plist file Foundation's `UserDefaults.standard` uses on Linux
    /// (`$XDG_CONFIG_HOME/<executable name>.plist`), so an app that switches from UserDefaults
    /// keeps its data. If that file cannot be opened, the standard store lives in memory and the
    /// reason is in its ``recentEvents``.
    ///
    /// Replace it at start-up, before the first `@Stored` property is created:
    ///
    /// ```swift
    /// PreferenceStore.standard = try PreferenceStore(.sqlite(at: dataDirectory.appending(path: "prefs.sqlite")))
    /// ```
    public static var standard: PreferenceStore {
        get {
            standardStore.withLock { store in
                if let store { return store }
                let created = makeDefaultStandard()
                store = created
                return created
            }
        }
        set { standardStore.withLock { $0 = newValue } }
    }

    private static func makeDefaultStandard() -> PreferenceStore {
        do {
            return try PreferenceStore(.plist(suite: PlistBackend.defaultSuiteName()))
        } catch {
            let fallback = inMemory()
            fallback.report(.commitFailed(StoreError(error, path: PlistBackend.defaultSuiteName(), operation: "open")))
            return fallback
        }
    }
}
