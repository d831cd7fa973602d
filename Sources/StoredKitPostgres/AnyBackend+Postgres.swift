import StoredKit

extension AnyBackend {
    /// ``PostgresBackend`` for `namespace` on the server at `url`, as
    /// `Backend.postgres(url:namespace:timeout:)` makes it, so a condition between a file and a
    /// server compiles as it is written.
    ///
    /// ```swift
    /// import StoredKit
    /// import StoredKitPostgres
    ///
    /// let backend: AnyBackend = .postgres(url: "postgresql://app@db.internal/prefs", namespace: "user:42")
    /// let store = try PreferenceStore(shared ? backend : .plist(suite: "com.example.app"))
    /// ```
    public static func postgres(
        url: String, namespace: String = "default", timeout: Duration = .seconds(5)
    ) -> AnyBackend {
        AnyBackend(PostgresBackend(url: url, namespace: namespace, timeout: timeout))
    }
}
