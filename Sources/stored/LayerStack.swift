import Foundation
import StoredKit

/// The layers a command reads around a STORE: a suite name's standard files (those of
/// `PreferenceStore.standard`: the forced file and the XDG and "any user" defaults, never `stored`'s
/// own arguments), then `--forced FILE`, `--defaults FILE` (both repeatable) and `--env-prefix P`.
/// The user's store itself is not a layer here: commands open it as they always did.
///
/// ```swift
/// let stack = try LayerStack(arguments, for: location, command: "read")
/// stack.layers.map(\.description)  //=> ["forced: /etc/storedkit/forced/app.plist", "defaults: /etc/xdg/app.plist", ...]
/// ```
struct LayerStack: Sendable {
    /// The layers in the order a store reads them (forced, environment, then defaults below the user).
    let layers: [PreferenceLayer]
    /// The command whose options built the stack, for usage messages.
    let command: String
    /// The environment layer's prefix (`--env-prefix`) and the variables it reads, by name.
    let environmentPrefix: String?
    let environmentVariables: [String: String]
    /// Where warnings about the layers go.
    private let console = Console()

    /// The options every command that reads through layers accepts.
    static let options: [OptionSpec] = [
        OptionSpec("forced", value: "FILE", "Add an administrator's forced plist layer (repeatable)."),
        OptionSpec("defaults", value: "FILE", "Add a defaults plist layer below the user's values (repeatable)."),
        OptionSpec("env-prefix", value: "P", "Add an environment layer: P followed by the key (MYAPP_VOLUME)."),
        OptionSpec("root", value: "DIR", "Look for a suite's standard layer files under DIR instead of /."),
    ]

    init(
        _ arguments: ParsedArguments, for location: StoreLocation, command: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CLIError) {
        self.command = command
        var variables: [String: String] = [:]
        var layers: [PreferenceLayer] = []
        if let root = arguments.value("root"), !location.isSuite {
            throw CLIError.usage(command, "--root \(root) applies to a suite name; '\(location.path)' is not one")
        }
        if location.isSuite {
            let root = URL(fileURLWithPath: arguments.value("root") ?? "/")
            // The app's launch arguments are not stored's: `arguments: nil`.
            layers += PreferenceLayer.standard(suite: location.argument, root: root, arguments: nil, environment: environment)
        }
        for path in arguments.values("forced") { layers.append(.forced(.plist(at: try Self.fileURL(path, "forced", command)))) }
        if let prefix = arguments.value("env-prefix") {
            guard !prefix.isEmpty else { throw CLIError.usage(command, "--env-prefix needs a non-empty prefix such as MYAPP_") }
            variables = environment.filter { $0.key.hasPrefix(prefix) }
            layers.append(.environment(prefix: prefix, variables: variables))
        }
        for path in arguments.values("defaults") {
            layers.append(.defaults(.plist(at: try Self.fileURL(path, "defaults", command))))
        }
        environmentPrefix = arguments.value("env-prefix")
        environmentVariables = variables
        // Stable: files of one role keep the order given.
        self.layers = layers.enumerated().sorted { ($0.element.role, $0.offset) < ($1.element.role, $1.offset) }.map(\.element)
    }

    var isEmpty: Bool { layers.isEmpty }

    /// The layers above the user's values, then the ones below.
    var upper: [PreferenceLayer] { layers.filter(\.role.isAboveUser) }
    var lower: [PreferenceLayer] { layers.filter { !$0.role.isAboveUser } }

    /// The layers over an empty user layer: what a reset leaves and which keys are forced. A layer
    /// file that cannot be read is empty, as the library reads it; unless `warning` is false (`stored
    /// layers` shows it in its table), that is said on stderr.
    func view(warning: Bool = true) throws -> PreferenceStore {
        let store = try PreferenceStore(MemoryBackend(), layers: layers, durability: .immediate)
        if warning { warnAboutUnreadableFiles(store) }
        return store
    }

    /// Says on stderr, naming it, each layer file the store could not read at open. The library
    /// reads such a file as an empty layer and reports it (``StoreEvent/layerFileUnreadable(path:reason:keptLastGood:)``),
    /// so an app with it goes on; the command goes on as the app does, and the user learns why a
    /// value of that file is missing.
    func warnAboutUnreadableFiles(_ store: PreferenceStore) {
        for case .layerFileUnreadable(let path, let reason, _) in store.recentEvents {
            console.error(
                "warning: layer file '\(path)' cannot be read: \(Self.sentence(reason)) It is read as empty, as an app "
                    + "reads it. Fix the file, or leave it out of the command.")
        }
    }

    /// Says on stderr which of `keys`, just written, the environment layer hides: the library
    /// stores such a write and reports it (``StoreEvent/writeOverridden(key:source:)``), since an app
    /// keeps reading the variable.
    func warnAboutHiddenWrites(_ keys: some Sequence<String>, in view: PreferenceStore) {
        for key in keys {
            guard case .environment(let variable) = view.source(forKey: key) else { continue }
            console.error("warning: '\(key)' was written, but the environment variable \(variable) hides it from apps.")
        }
    }

    /// The error for `key`, missing from the user's store: when a layer holds it (so `read` and
    /// `keys` show it), the message says that layer answers and that `stored` changes only the
    /// user's values, rather than that the key does not exist.
    static func keyNotFound(_ key: String, in location: StoreLocation, view: PreferenceStore?) -> CLIError {
        guard let source = view?.source(forKey: key), source != .keyDefault, source != .registered else {
            return CLIError.keyNotFound(key, in: location)
        }
        return CLIError(
            .keyNotFound,
            "Key '\(key)' has no value of its own in '\(location.path)': what it reads comes from \(source), which "
                + "stored does not change. Run 'stored keys \(location.argument) --user' to list the store's own keys.")
    }

    /// Stops with status 7, naming the file, when an administrator forces any of `keys`.
    func requireUnforced(_ keys: [String], advice: String = "") throws {
        guard !isEmpty, !keys.isEmpty else { return }
        try requireUnforced(keys, in: try view(), advice: advice)
    }

    /// ``requireUnforced(_:advice:)`` against a view already open.
    func requireUnforced(_ keys: some Sequence<String>, in view: PreferenceStore, advice: String = "") throws(CLIError) {
        let forced = keys.compactMap { key in Self.forcingFile(of: key, in: view).map { (key, $0) } }
        guard let (key, file) = forced.first else { return }
        let named =
            forced.count == 1
            ? "Key '\(key)' is forced by '\(file)'"
            : "Keys " + forced.map { "'\($0.0)' (forced by '\($0.1)')" }.joined(separator: ", ") + " are forced"
        throw CLIError(
            .forced,
            "\(named): an administrator's value, which stored does not change; nothing was written. "
                + "Ask the administrator to change that file\(advice).")
    }

    /// The file (or memory layer) that forces `key`, if one does.
    static func forcingFile(of key: String, in view: PreferenceStore) -> String? {
        if case .forced(let location) = view.source(forKey: key) { return location }
        return nil
    }

    /// `reason` ending with exactly one full stop.
    private static func sentence(_ reason: String) -> String {
        reason.hasSuffix(".") ? reason : reason + "."
    }

    private static func fileURL(_ path: String, _ option: String, _ command: String) throws(CLIError) -> URL {
        guard !path.isEmpty else { throw CLIError.usage(command, "--\(option) needs a file path") }
        // Not a directory URL even when a directory is there: the layer names a file, and messages show it as given.
        return URL(fileURLWithPath: path, isDirectory: false).standardizedFileURL
    }
}
