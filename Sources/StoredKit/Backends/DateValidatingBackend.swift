/// A backend whose ``Backend/validate(_:forKey:)`` refuses a value, beyond its key, only for a
/// date in it: a value the encoder wrote no date into is then admitted by its key alone, without
/// a walk of the whole tree on every Codable `set`.
///
/// ```swift
/// try plistBackend.validate(key: "StoredKit.metadata")  // throws: the key is reserved
/// ```
protocol DateValidatingBackend: Backend {
    /// What ``Backend/validate(_:forKey:)`` checks of a value that holds no date.
    func validate(key: String) throws
}
