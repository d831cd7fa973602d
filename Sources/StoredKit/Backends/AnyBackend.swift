import Foundation

/// A backend chosen at run time: one type for every backend, so both branches of a condition
/// agree and the choice reads as naturally as a single backend does.
///
/// `PreferenceStore(_:)` takes `AnyBackend` as well as any concrete ``Backend``, and `AnyBackend`
/// offers the same factories (`.sqlite(at:)`, `.plist(at:)`, `.plist(suite:)`, and
/// `.postgres(url:namespace:timeout:)` from StoredKitPostgres), so a condition between two of them compiles as it is written.
/// The store keeps the backend inside, not the wrapper: `store.backend` is the real one.
///
/// ```swift
/// let store = try PreferenceStore(useSQLite ? .sqlite(at: databaseURL) : .plist(at: plistURL))
/// let custom = try PreferenceStore(inTests ? AnyBackend(MemoryBackend()) : .plist(suite: "com.example.app"))
/// ```
public struct AnyBackend: Sendable {
    /// The backend the store opens.
    ///
    /// ```swift
    /// AnyBackend.sqlite(at: url).base is SQLiteBackend  //=> true
    /// ```
    public let base: any Backend

    /// Wraps any backend, your own included.
    ///
    /// ```swift
    /// let backend = AnyBackend(MemoryBackend())
    /// ```
    public init(_ base: some Backend) {
        self.base = base
    }

    /// ``SQLiteBackend`` at `url`, as `Backend.sqlite(at:corruption:)` makes it.
    ///
    /// ```swift
    /// let backend: AnyBackend = .sqlite(at: URL(filePath: "/home/me/.config/app/prefs.sqlite"))
    /// ```
    public static func sqlite(at url: URL, corruption: CorruptionPolicy = .quarantine) -> AnyBackend {
        AnyBackend(SQLiteBackend(at: url, corruption: corruption))
    }

    /// ``PlistBackend`` at `url`, as `Backend.plist(at:format:corruption:)` makes it.
    ///
    /// ```swift
    /// let backend: AnyBackend = .plist(at: URL(filePath: "/tmp/app.plist"), format: .binary)
    /// ```
    public static func plist(
        at url: URL, format: PlistFormat = .xml, corruption: CorruptionPolicy = .quarantine
    ) -> AnyBackend {
        AnyBackend(PlistBackend(at: url, format: format, corruption: corruption))
    }

    /// The plist file of a UserDefaults suite, as `Backend.plist(suite:format:corruption:)` makes it.
    ///
    /// ```swift
    /// let backend: AnyBackend = .plist(suite: "com.example.app")
    /// ```
    public static func plist(
        suite: String, format: PlistFormat = .xml, corruption: CorruptionPolicy = .quarantine
    ) -> AnyBackend {
        AnyBackend(PlistBackend(at: PlistBackend.fileURL(forSuite: suite), format: format, corruption: corruption))
    }
}

extension PreferenceStore {
    /// Opens a store over a backend chosen at run time; migrations, durability and the newer-data
    /// policy work as with a concrete backend.
    ///
    /// ```swift
    /// let store = try PreferenceStore(useSQLite ? .sqlite(at: databaseURL) : .plist(at: plistURL))
    /// ```
    public convenience init(
        _ backend: AnyBackend,
        migrations: [Migration] = [],
        durability: Durability = .deferred,
        whenNewer: NewerSchemaPolicy = .fail
    ) throws {
        try self.init(backend.base, migrations: migrations, durability: durability, whenNewer: whenNewer)
    }
}

extension PreferenceStore {
    /// Opens a store over a backend chosen at run time, reading each key through `layers` too.
    ///
    /// ```swift
    /// let store = try PreferenceStore(.sqlite(at: userFile), layers: [.arguments(CommandLine.arguments)])
    /// ```
    public convenience init(
        _ backend: AnyBackend,
        layers: [PreferenceLayer],
        migrations: [Migration] = [],
        durability: Durability = .deferred,
        whenNewer: NewerSchemaPolicy = .fail
    ) throws {
        try self.init(backend.base, layers: layers, migrations: migrations, durability: durability, whenNewer: whenNewer)
    }
}
