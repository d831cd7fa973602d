import Foundation
import StoredKit

/// The file formats of `stored export`.
enum ExportFormat: String, CaseIterable, Sendable {
    case json, xml, binary

    /// The format a file name suggests: `.plist` is an XML plist, anything else JSON.
    init(fileName: String) {
        self = (fileName as NSString).pathExtension.lowercased() == "plist" ? .xml : .json
    }

    init(option: String?, command: String) throws(CLIError) {
        guard let option else { self = .json; return }
        guard let format = ExportFormat(rawValue: option.lowercased()) else {
            throw CLIError.usage(command, "Unknown format '\(option)'; use json, xml or binary")
        }
        self = format
    }
}

// Whole-store commands: every value crosses in one piece, and a bad input changes nothing.
extension Command {
    static let export = Command(
        name: "export",
        arguments: "STORE [FILE|-]",
        summary: "Write the whole store (or namespace) to a file or stdout",
        discussion: """
            Writes every key and value to FILE (replaced atomically; a new FILE is readable by you only,
            like a store) or to standard output ('-' or no FILE). A FIFO or a character device
            (/dev/stdout, >(gzip)) is written into as a shell's '>' would, never replaced.
            The format is --format, else .plist files get an XML plist and everything else JSON.
            JSON keeps every type exactly with the tagged form described in 'stored help', so
            'stored export A - | stored import B -' copies a store exactly. An XML plist cannot
            hold fractions of a second or the control characters XML forbids: such a value is
            refused by name (status 3) and nothing is written; use --format binary or json.
            The export is the user's own values (a backup to import later), whatever the layers say;
            --effective exports what an app reads instead: every key through the layers (see 'stored
            help read'), environment text as strings.
            """,
        options: [
            OptionSpec("format", value: "json|xml|binary", "The output format (default: json)."),
            OptionSpec("effective", "Export the values read through the layers, not the user's own."),
        ] + LayerStack.options,
        examples: [
            "stored export prefs.sqlite backup.json", "stored export prefs.plist - --format xml",
            "stored export postgresql://app@db/prefs --namespace user:42 backup.json",
            "stored export com.example.app effective.json --effective --env-prefix MYAPP_",
        ],
        positionalCount: 1...2
    ) { arguments, console in
        let location = try StoreLocation(arguments)
        let stack = try LayerStack(arguments, for: location, command: "export")
        // --root only moves a suite's standard files, which a backup ignores anyway.
        let layerOption = LayerStack.options.first { $0.name != "root" && arguments.value($0.name) != nil }
        if !arguments.has("effective"), let option = layerOption {
            throw CLIError.usage(
                "export", "--\(option.name) adds a layer, which only --effective exports; a backup is the user's values alone")
        }
        let destination = arguments.positionals.count == 2 ? arguments.positionals[1] : "-"
        let target = try FileArgument(destination)
        let format =
            arguments.value("format") == nil && destination != "-"
            ? ExportFormat(fileName: destination) : try ExportFormat(option: arguments.value("format"), command: "export")
        let store = arguments.has("effective") ? try location.openExisting(through: stack) : try location.openExisting()
        try PlistBytes.requireDistinctKeys(store.recentEvents, command: "export")
        try PlistBytes.requireNoTooDeepValues(store.recentEvents, in: location.path, command: "export")
        let values = store.dictionaryRepresentation()
        if format == .xml {
            try PlistBytes.requireExact(
                values, inXMLPlistAt: destination == "-" ? "standard output" : destination,
                alternative: "Export with --format binary or json")
        }
        let data: Data =
            switch format {
            case .json: Data((StoredValueJSON.encode(.dictionary(values), prettyPrinted: true) + "\n").utf8)
            case .xml: try PlistBytes.encode(values, format: .xml)
            case .binary: try PlistBytes.encode(values, format: .binary)
            }
        switch target {
        case .standardStream: console.write(data)
        case .stream(let path): try FileArgument.write(data, toStream: path)
        case .regularFile(let path):
            // Like a store: a new file is private (0600) whatever the umask, an existing one keeps its
            // mode, and readers see the old bytes or the new ones.
            try AtomicFile.write(data, to: path)
        }
    }

    static let `import` = Command(
        name: "import",
        arguments: "STORE FILE|-",
        summary: "Replace the store's contents with a file (all or nothing)",
        discussion: """
            Reads a JSON export or a plist (XML or binary) from FILE (a pipe too: /dev/stdin, <(…))
            or standard input ('-'), checks all
            of it, then replaces the store's contents in one transaction: afterwards the store holds
            exactly the file's keys. With --merge, keys missing from the file are kept.
            A malformed file changes nothing (status 3). Creates the store if needed.
            If an administrator forces a key the import would set or remove, nothing is imported
            (status 7, naming the keys and files); with --skip-forced the other keys are imported and
            each forced one is reported and left as it is. A key the --env-prefix environment hides
            is imported, with a warning.
            """,
        options: [
            OptionSpec("merge", "Keep keys that the file does not mention."),
            OptionSpec("skip-forced", "Import every key but the forced ones, reporting each."),
        ] + LayerStack.options,
        examples: [
            "stored import prefs.sqlite backup.json", "stored export old.plist - | stored import new.sqlite -",
            "stored import postgresql://app@db/prefs --namespace user:42 backup.json",
        ],
        positionalCount: 2...2
    ) { arguments, console in
        let location = try StoreLocation(arguments)
        let stack = try LayerStack(arguments, for: location, command: "import")
        let values = try ImportFile.read(arguments.positionals[1])
        if location.kind == .plist { try PlistBytes.requireExact(values, in: location, format: location.existingPlistFormat) }
        let layers = stack.isEmpty ? nil : try stack.view()
        let store = try location.openForWriting()
        var skipped: [(key: String, file: String)] = []
        var written: [String] = []
        try store.transaction { transaction in
            // `nil` removes: the keys the store holds and the file does not, unless merging.
            var writes: [String: StoredValue?] = values
            if !arguments.has("merge") {
                for key in transaction.keys where values[key] == nil { writes[key] = .some(nil) }
            }
            if let layers, arguments.has("skip-forced") {
                skipped = writes.keys.sorted().compactMap { key in
                    LayerStack.forcingFile(of: key, in: layers).map { (key, $0) }
                }
                for (key, _) in skipped { writes.removeValue(forKey: key) }
            } else if let layers {
                try stack.requireUnforced(
                    writes.keys.sorted(), in: layers, advice: ", or pass --skip-forced to import the other keys")
            }
            for (key, value) in writes { transaction.setStoredValue(value, forKey: key) }
            written = writes.compactMap { $0.value == nil ? nil : $0.key }.sorted()
        }
        if let layers { stack.warnAboutHiddenWrites(written, in: layers) }
        for (key, file) in skipped {
            console.error("skipped key '\(key)': forced by '\(file)'; the store's value of it was left as it was.")
        }
    }

    static let convert = Command(
        name: "convert",
        arguments: "FROM TO",
        summary: "Copy every value between stores (plist, SQLite, PostgreSQL) exactly",
        discussion: """
            Copies every key, value and the schema version from FROM into TO in one transaction;
            the format of each follows its name (see STORE in 'stored help'). TO is created if needed;
            if it already holds keys the command stops (status 3) unless --replace is given.
            --namespace names the namespace of a server FROM (and of TO, unless --to-namespace does).
            If TO is a suite name whose administrator forces a key the copy would change, nothing is
            copied (status 7, naming the keys and files).
            """,
        options: [
            OptionSpec("replace", "Replace the contents of a TO that is not empty."),
            OptionSpec("root", value: "DIR", "Look for a suite TO's standard layer files under DIR instead of /."),
            OptionSpec("format", value: "xml|binary", "The encoding of a plist TO (default: xml, or TO's current one)."),
            OptionSpec("to-namespace", value: "NAME", "The namespace of a PostgreSQL TO (default: --namespace)."),
        ],
        examples: [
            "stored convert com.example.app ~/.config/example/prefs.sqlite", "stored convert prefs.sqlite prefs.plist",
            "stored convert prefs.sqlite postgresql://app@db/prefs --namespace user:42",
        ],
        positionalCount: 2...2
    ) { arguments, _ in
        let namespace = arguments.value("namespace")
        let source = try StoreLocation(arguments.positionals[0], namespace: namespace)
        let target = try StoreLocation(arguments.positionals[1], namespace: arguments.value("to-namespace") ?? namespace)
        let namespaceApplies = source.server != nil || (target.server != nil && arguments.value("to-namespace") == nil)
        if let namespace, !namespaceApplies {
            throw CLIError.usage("convert", "--namespace \(namespace) applies to a PostgreSQL FROM or TO; neither is one")
        }
        if target.server == nil, let toNamespace = arguments.value("to-namespace") {
            throw CLIError.usage(
                "convert", "--to-namespace \(toNamespace) applies to a PostgreSQL TO; '\(target.path)' is a file")
        }
        guard source.path != target.path else {
            throw CLIError.usage("convert", "FROM and TO are the same store '\(source.path)'")
        }
        let plistFormat = try plistFormat(arguments.value("format"), for: target)
        // A suite TO is an app's store: its administrator's forced keys are not copied over, as in `import`.
        let targetLayers = try LayerStack(arguments, for: target, command: "convert")
        let forcedView = targetLayers.isEmpty ? nil : try targetLayers.view()
        let sourceStore = try source.openExisting()
        try PlistBytes.requireDistinctKeys(sourceStore.recentEvents, command: "convert")
        try PlistBytes.requireNoTooDeepValues(sourceStore.recentEvents, in: source.path, command: "convert")
        let values = sourceStore.dictionaryRepresentation()
        let schemaVersion = sourceStore.schemaVersion
        // The backend is written directly, not through a store's `set`: check each key as `set` would.
        for key in values.keys.sorted() { try PreferenceStore.checkKey(key) }
        if target.kind == .plist {
            try PlistBytes.requireExact(values, in: target, format: plistFormat ?? target.existingPlistFormat)
        }
        try target.backend(plistFormat: plistFormat, forWriting: true).withExclusiveAccess { current in
            if !current.values.isEmpty, !arguments.has("replace") {
                throw CLIError(
                    .invalidInput,
                    "'\(target.path)' already holds \(keyCount(current.values.count)). Convert into a new or empty store, or pass --replace."
                )
            }
            var changes = BackendChanges(durability: .immediate)
            for key in current.values.keys where values[key] == nil { changes.values[key] = .some(nil) }
            for (key, value) in values where current.values[key] != value { changes.values[key] = value }
            if schemaVersion != current.schemaVersion { changes.schemaVersion = schemaVersion }
            if let forcedView {
                try targetLayers.requireUnforced(
                    changes.values.keys.sorted(), in: forcedView,
                    advice: ", or copy the other keys with 'stored import --skip-forced'")
            }
            return (changes, ())
        }
    }

    private static func plistFormat(_ option: String?, for target: StoreLocation) throws(CLIError) -> PlistFormat? {
        guard let option else { return nil }
        guard target.kind == .plist else {
            throw CLIError.usage("convert", "--format applies to a plist TO; '\(target.path)' is a \(target.kind.name) store")
        }
        switch option.lowercased() {
        case "xml": return .xml
        case "binary": return .binary
        default: throw CLIError.usage("convert", "Unknown plist format '\(option)'; use xml or binary")
        }
    }
}

/// The input of `stored import`, read and checked completely before any store is touched.
///
/// ```swift
/// try ImportFile.parse(Data(#"{"a": 1}"#.utf8), source: "a.json")  //=> ["a": .int(1)]
/// ```
enum ImportFile {
    static func read(_ argument: String) throws -> [String: StoredValue] {
        if argument == "-" {
            return try parse(FileHandle.standardInput.readDataToEndOfFile(), source: "standard input")
        }
        // Read to the end, not by the size the file claims: a pipe (/dev/stdin, <(…)) claims none.
        return try parse(FileArgument.readAll(argument), source: argument)
    }

    static func parse(_ data: Data, source: String) throws -> [String: StoredValue] {
        if StoreFileFormat(content: data) == .plist {
            return try PlistBytes.decode(data, source: source)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError(.invalidInput, "'\(source)' is neither UTF-8 JSON nor a plist. Give a file made by 'stored export'.")
        }
        let value: StoredValue
        do {
            // An object of keys lets each value nest as deep as a store holds it.
            value =
                data.first(where: { !" \t\r\n".utf8.contains($0) }) == UInt8(ascii: "{")
                ? .dictionary(try StoredValueJSON.decodeKeys(text, source: source))
                : try StoredValueJSON.decode(text, source: source)
        } catch {
            let reason = ValueParser.reason(of: error)
            // Deep JSON is valid JSON: say what StoredKit cannot hold, not that the file is broken.
            if reason.contains("nested deeper than") {
                throw CLIError(
                    .invalidInput, "'\(source)' holds a value StoredKit cannot store (\(reason)); the store was not changed.")
            }
            throw CLIError(
                .invalidInput,
                "'\(source)' is not valid JSON (\(reason)). Fix the file or export it again; the store was not changed.")
        }
        guard case .dictionary(let values) = value else {
            throw CLIError(
                .invalidInput,
                "'\(source)' holds \(value.typeName), not a dictionary of keys. Give a file made by 'stored export'.")
        }
        return values
    }
}

extension StoreEvent {
    /// Whether this names two keys that differ only in their Unicode form.
    var isEquivalentKeys: Bool { if case .equivalentKeys = self { true } else { false } }
}
