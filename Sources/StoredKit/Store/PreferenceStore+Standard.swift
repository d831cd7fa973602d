import Synchronization

extension PreferenceStore {
    private static let standardStore = Mutex<PreferenceStore?>(nil)
    /// The store ``withStandard(_:_:)-(_,()->R)`` put in place for the current task (or thread).
    @TaskLocal private static var scopedStandard: PreferenceStore?

    /// The process-wide default store, used by ``Stored`` when no store is given.
    ///
    /// By default it is the plist file Foundation's `UserDefaults.standard` uses on Linux
    /// (`$XDG_CONFIG_HOME/<executable name>.plist`), so an app that switches from UserDefaults
    /// keeps its data. Like UserDefaults it also reads launch arguments (`-volume 0.3`; switch them
    /// off with ``readsLaunchArguments``), system-wide defaults and an administrator's forced file:
    /// see ``PreferenceLayer/standard(suite:root:arguments:environment:)``. If that file cannot be
    /// opened, the standard store lives in memory and the reason is in its ``recentEvents``.
    ///
    /// Replace it at start-up, before the first `@Stored` property is created:
    ///
    /// ```swift
    /// PreferenceStore.standard = try PreferenceStore(.sqlite(at: dataDirectory.appending(path: "prefs.sqlite")))
    /// ```
    ///
    /// Tests should not touch the real file: run them inside ``withStandard(_:_:)-(_,()->R)``, which
    /// replaces it for the code in its body.
    public static var standard: PreferenceStore {
        get {
            if let scoped = scopedStandard { return scoped }
            return standardStore.withLock { store in
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
            let suite = PlistBackend.defaultSuiteName()
            let layers = PreferenceLayer.standard(suite: suite, arguments: readsLaunchArguments ? CommandLine.arguments : nil)
            return try PreferenceStore(.plist(suite: suite), layers: layers)
        } catch {
            let fallback = inMemory()
            fallback.report(.commitFailed(StoreError(error, path: PlistBackend.defaultSuiteName(), operation: "open")))
            return fallback
        }
    }

    /// Runs `body` with `store` as ``standard``: every `@Stored` property created inside without
    /// a `store:` uses it, and the process-wide store is neither opened nor changed. For tests,
    /// previews and tools that must not write the user's real preferences file.
    ///
    /// The replacement is a task-local value. It reaches the code `body` runs synchronously, the
    /// child tasks it starts (`async let`, task groups) and `Task { }` created inside; it does not
    /// reach `Task.detached`, Dispatch queues or threads started inside, which see the
    /// process-wide store. Scopes nest: the innermost wins.
    ///
    /// ```swift
    /// PreferenceStore.withStandard(.inMemory()) {
    ///     @Stored("launchCount") var launchCount = 0
    ///     launchCount += 1  // written to the in-memory store
    /// }
    /// ```
    public static func withStandard<R>(_ store: PreferenceStore, _ body: () throws -> R) rethrows -> R {
        try $scopedStandard.withValue(store, operation: body)
    }

    /// The `async` form of ``withStandard(_:_:)-(_,()->R)``: `body` and its child tasks see `store` as ``standard``.
    ///
    /// ```swift
    /// await PreferenceStore.withStandard(.inMemory()) {
    ///     let settings = Settings()  // its @Stored properties use the in-memory store
    ///     await settings.refresh()
    /// }
    /// ```
    public static func withStandard<R>(
        _ store: PreferenceStore,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> R
    ) async rethrows -> R {
        try await $scopedStandard.withValue(store, operation: body, isolation: isolation)
    }
}
