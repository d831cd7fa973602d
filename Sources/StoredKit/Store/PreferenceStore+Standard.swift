import Synchronization

extension PreferenceStore {
    private static let standardStore = Mutex<PreferenceStore?>(nil)

    /// The process-wide default store, used by ``Stored`` when no store is given.
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
        inMemory()
    }
}
