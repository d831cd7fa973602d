import StoredKit

// `stored read`: the effective values (through the layers), the user's own, or what a reset leaves,
// each optionally with the layer it comes from.
extension Command {
    static let read = Command(
        name: "read",
        arguments: "STORE [KEY]",
        summary: "Print the whole store or one value, typed and readable",
        discussion: """
            Prints every key with its value, sorted by key, or only the value of KEY.
            Strings are quoted; reals always show a '.', an exponent, nan or inf; dates are ISO 8601 UTC;
            data is <hex>; arrays and dictionaries list one element per line, indented.
            With --json the output is the JSON form that 'stored import' and 'write --json' read.

            Values are read through the store's layers, as an app with them sees them: a suite name's
            standard files (/etc/storedkit/forced/NAME.plist, NAME.plist in each $XDG_CONFIG_DIRS
            directory or /etc/xdg, /usr/local/etc/NAME.plist) and the layers the options add.
            Arguments and environment text is shown as a string. A layer file that cannot be read is
            empty, as an app reads it (a warning names it), and a STORE that does not exist yet reads as
            its layers (status 5 when they hold nothing). --user shows the store's own values
            only; --default what a reset would leave (every layer but the user's).
            --source prints, like 'git config --show-origin', the layer of each value before it:
            forced:FILE, environment:VARIABLE, user:STORE or defaults:FILE, a tab, then the value on one
            line ('key: value' for the whole store); with --json, an object with value, layer and
            location (for the whole store, one per key). A key only the environment holds is shown when
            KEY names it; other variables with the prefix are listed on stderr.
            """,
        options: [
            OptionSpec("json", "Print JSON (tagged form for dates, data and non-finite reals)."),
            OptionSpec("source", "Print the layer (and its file) of each value."),
            OptionSpec("user", "Print the user's own values, whatever the layers say."),
            OptionSpec("default", "Print what a reset would leave: every layer but the user's."),
        ] + LayerStack.options,
        examples: [
            "stored read prefs.plist", "stored read prefs.sqlite sidebar", "stored read com.example.app --json",
            "stored read com.example.app volume --source", "stored read prefs.plist --source --forced /etc/myapp/forced.plist",
            "stored read prefs.plist volume --env-prefix MYAPP_ --source", "stored read com.example.app volume --default",
        ],
        positionalCount: 1...2
    ) { arguments, console in
        let location = try StoreLocation(arguments)
        let stack = try LayerStack(arguments, for: location, command: "read")
        let reading = try ReadMode(arguments)
        let store: PreferenceStore =
            switch reading {
            case .effective: try location.openExisting(through: stack)
            case .user: try location.openExisting()
            case .afterReset: try stack.view()
            }
        let printer = SourcePrinter(store: store, location: location, reading: reading, asJSON: arguments.has("json"))
        guard arguments.positionals.count == 2 else {
            let values = store.dictionaryRepresentation()
            let text = arguments.has("source") ? printer.sourcedStore(values) : printer.store(values)
            if !text.isEmpty { console.print(text) }
            if arguments.has("source"), reading != .user {
                for variable in stack.unreadVariables(keys: values.keys) {
                    console.error("note: \(variable) is set, but no key listed here reads it; name its key to read it.")
                }
            }
            return
        }
        let key = arguments.positionals[1]
        guard let value = store.storedValue(forKey: key) else {
            if reading == .afterReset {
                throw CLIError(
                    .keyNotFound,
                    "No layer but the user's holds key '\(key)' of '\(location.path)': a reset leaves no value. "
                        + "Run 'stored layers \(location.argument)' to list the layers.")
            }
            throw CLIError.keyNotFound(key, in: location)
        }
        console.print(arguments.has("source") ? printer.sourcedValue(value, forKey: key) : printer.value(value))
    }
}

/// Which values `stored read` shows.
enum ReadMode: Sendable, Equatable {
    /// Through every layer, as an app sees them.
    case effective
    /// The store's own values (`--user`).
    case user
    /// Every layer but the user's (`--default`): what a reset would leave.
    case afterReset

    init(_ arguments: ParsedArguments) throws(CLIError) {
        switch (arguments.has("user"), arguments.has("default")) {
        case (true, true): throw CLIError.usage("read", "Give --user or --default, not both")
        case (true, false): self = .user
        case (false, true): self = .afterReset
        case (false, false): self = .effective
        }
    }
}

extension LayerStack {
    /// The environment layer's variables that none of `keys` reads, sorted: keys that only the
    /// environment holds cannot be listed, since a variable name does not say which key it spells.
    func unreadVariables(keys: some Sequence<String>) -> [String] {
        guard let prefix = environmentPrefix else { return [] }
        let read = Set(keys.map { PreferenceLayer.environmentVariable(forKey: $0, prefix: prefix) })
        return environmentVariables.keys.filter { !read.contains($0) }.sorted()
    }
}
