extension Stored {
    /// Where the value this property shows comes from (see ``PreferenceStore/source(forKey:)``).
    ///
    /// ```swift
    /// @Stored("volume", store: store) var volume = 0.5
    /// $volume.source  //=> .forced(location: "/etc/xdg/myapp/forced.plist")
    /// ```
    public var source: ValueSource { store.source(forKey: key.name) }

    /// Whether an administrator forced this key: disable its control (writes are refused).
    ///
    /// ```swift
    /// slider.isEnabled = !$volume.isForced
    /// ```
    public var isForced: Bool { store.isForced(forKey: key.name) }
}
