/// Where the value a key shows came from: the layer that had it, highest first.
///
/// ```swift
/// store.source(forKey: "volume")  //=> .arguments (the app was started with `-volume 0.3`)
/// ```
public enum ValueSource: Sendable, Hashable, CustomStringConvertible {
    /// An administrator's forced file (or memory layer) at `location`: the key is locked.
    case forced(location: String)
    /// The launch arguments (`-volume 0.3`).
    case arguments
    /// The environment variable `variable` (`MYAPP_VOLUME=0.3`).
    case environment(variable: String)
    /// The store's own backend: the user's value, the only layer anything writes.
    case user
    /// A defaults layer (site or vendor defaults) at `location`.
    case defaults(location: String)
    /// A value given to ``PreferenceStore/register(defaults:)``.
    case registered
    /// No layer has the key: the key's own default is read.
    case keyDefault

    /// A short phrase naming the source.
    ///
    /// ```swift
    /// ValueSource.environment(variable: "MYAPP_VOLUME").description  //=> environment variable MYAPP_VOLUME
    /// ```
    public var description: String {
        switch self {
        case .forced(let location): "forced by '\(location)'"
        case .arguments: "launch arguments"
        case .environment(let variable): "environment variable \(variable)"
        case .user: "the user's value"
        case .defaults(let location): "defaults in '\(location)'"
        case .registered: "registered defaults"
        case .keyDefault: "the key's default"
        }
    }
}
