import Foundation

/// One layer of a store's stack, given to ``PreferenceStore/init(_:layers:migrations:durability:whenNewer:)-(Backend,_,_,_,_)``.
/// Whatever the order of the list, a key resolves highest first: forced, arguments, environment,
/// the store's own backend (the user's values), defaults layers in the order given, registered
/// defaults, the key's default.
///
/// ```swift
/// let store = try PreferenceStore(.sqlite(at: userFile), layers: [
///     .forced(.plist(at: URL(filePath: "/etc/xdg/myapp/forced.plist"))),
///     .arguments(CommandLine.arguments),
///     .environment(prefix: "MYAPP_"),
///     .defaults(.plist(at: URL(filePath: "/etc/xdg/myapp/defaults.plist"))),
/// ])
/// ```
public struct PreferenceLayer: Sendable {
    enum Kind: Sendable {
        case forced(LayerSource)
        case arguments([String: String])
        case environment(prefix: String, variables: [String: String])
        case defaults(LayerSource)
    }

    let kind: Kind

    /// An administrator's values: they win over every other layer and lock their keys, so writes
    /// of them are refused (``StoreEvent/forcedWriteRefused(key:source:)``). This is the
    /// administrator's word to a well-behaved app, not a security boundary.
    ///
    /// ```swift
    /// .forced(.plist(at: URL(filePath: "/etc/xdg/myapp/forced.plist")))
    /// ```
    public static func forced(_ source: LayerSource) -> PreferenceLayer {
        PreferenceLayer(kind: .forced(source))
    }

    /// Launch arguments read the way UserDefaults reads them: the first element is the program's
    /// path and is skipped; `-name value` sets `name` to the text `value` (also when the value starts
    /// with `-`, so `-offset -3` works); an element that does not start with a single `-` is skipped;
    /// `--` ends the list. When a name repeats, the last one wins.
    ///
    /// ```swift
    /// .arguments(CommandLine.arguments)  // myapp -volume 0.3 -sidebar.order '["a","b"]'
    /// ```
    public static func arguments(_ arguments: [String]) -> PreferenceLayer {
        PreferenceLayer(kind: .arguments(LaunchArguments.parse(arguments)))
    }

    /// Environment variables named `prefix` followed by the key in the form of
    /// ``environmentVariable(forKey:prefix:)`` (`volume` → `MYAPP_VOLUME`). `variables` defaults to
    /// the process's environment.
    ///
    /// ```swift
    /// .environment(prefix: "MYAPP_")
    /// .environment(prefix: "MYAPP_", variables: ["MYAPP_VOLUME": "0.3"])
    /// ```
    public static func environment(
        prefix: String, variables: [String: String] = ProcessInfo.processInfo.environment
    ) -> PreferenceLayer {
        PreferenceLayer(kind: .environment(prefix: prefix, variables: variables.filter { $0.key.hasPrefix(prefix) }))
    }

    /// Site or vendor defaults: read below the user's values, above registered defaults. Several
    /// defaults layers are read in the order given.
    ///
    /// ```swift
    /// .defaults(.plist(at: URL(filePath: "/etc/xdg/myapp/defaults.plist")))
    /// ```
    public static func defaults(_ source: LayerSource) -> PreferenceLayer {
        PreferenceLayer(kind: .defaults(source))
    }

    /// Where the layer sits: lower ranks are read first; the user's values sit at rank 3.
    var rank: Int {
        switch kind {
        case .forced: 0
        case .arguments: 1
        case .environment: 2
        case .defaults: 4
        }
    }

    /// The file-backed or memory source of a forced or defaults layer.
    var source: LayerSource? {
        switch kind {
        case .forced(let source), .defaults(let source): source
        case .arguments, .environment: nil
        }
    }
}
