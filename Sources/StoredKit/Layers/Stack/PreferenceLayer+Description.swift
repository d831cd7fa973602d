import Foundation

// What a tool (`stored layers`) or a settings screen shows about a layer: its place in the stack,
// the file it reads and a phrase naming it. Read-only facts; nothing here changes how a key resolves.
extension PreferenceLayer {
    /// Where a layer sits in a store's stack, highest first. The store's own backend (the user's
    /// values, ``ValueSource/user``) sits between ``environment`` and ``defaults``.
    ///
    /// ```swift
    /// PreferenceLayer.forced(.memory([:])).role  //=> .forced
    /// layers.sorted { $0.role < $1.role }  // the order a store reads them
    /// ```
    public enum Role: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
        /// An administrator's values: they win and lock their keys.
        case forced
        /// Launch arguments (`-volume 0.3`).
        case arguments
        /// Environment variables with a prefix (`MYAPP_VOLUME=0.3`).
        case environment
        /// Site or vendor defaults, below the user's values.
        case defaults

        /// Whether the layer is read before the user's values (and so hides them).
        ///
        /// ```swift
        /// PreferenceLayer.Role.environment.isAboveUser  //=> true
        /// ```
        public var isAboveUser: Bool { self != .defaults }

        /// Whether `lhs` is read before `rhs`.
        ///
        /// ```swift
        /// PreferenceLayer.Role.forced < .defaults  //=> true
        /// ```
        public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The role's name: `forced`, `arguments`, `environment`, `defaults`.
        ///
        /// ```swift
        /// PreferenceLayer.Role.defaults.description  //=> "defaults"
        /// ```
        public var description: String {
            switch self {
            case .forced: "forced"
            case .arguments: "arguments"
            case .environment: "environment"
            case .defaults: "defaults"
            }
        }
    }

    /// This layer's place in the stack.
    ///
    /// ```swift
    /// PreferenceLayer.environment(prefix: "MYAPP_").role  //=> .environment
    /// ```
    public var role: Role {
        switch kind {
        case .forced: .forced
        case .arguments: .arguments
        case .environment: .environment
        case .defaults: .defaults
        }
    }

    /// The plist file a forced or defaults layer reads; `nil` for memory, arguments and environment
    /// layers. The store never writes, creates, locks or moves it.
    ///
    /// ```swift
    /// PreferenceLayer.defaults(.plist(at: URL(filePath: "/etc/xdg/app.plist"))).fileURL?.path  //=> "/etc/xdg/app.plist"
    /// ```
    public var fileURL: URL? {
        source?.filePath.map { URL(filePath: $0) }
    }

    /// Where the layer reads: the file's path, a memory layer's name, `-key value` for launch
    /// arguments, or the variables' prefix followed by `*` for the environment.
    ///
    /// ```swift
    /// PreferenceLayer.environment(prefix: "MYAPP_").location  //=> "MYAPP_*"
    /// ```
    public var location: String {
        switch kind {
        case .forced(let source), .defaults(let source): source.location
        case .arguments: "-key value"
        case .environment(let prefix, _): prefix + "*"
        }
    }
}

extension PreferenceLayer: CustomStringConvertible {
    /// The role and where it reads, as a tool lists it.
    ///
    /// ```swift
    /// PreferenceLayer.forced(.plist(at: URL(filePath: "/etc/app/forced.plist"))).description
    /// //=> "forced: /etc/app/forced.plist"
    /// ```
    public var description: String { "\(role): \(location)" }
}
