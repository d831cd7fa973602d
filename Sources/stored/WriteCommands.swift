import StoredKit

// Commands that change one store. Each parses everything first and then makes one transaction,
// so a bad argument or a missing key changes nothing.
extension Command {
    static let write = Command(
        name: "write",
        arguments: "STORE KEY VALUE",
        summary: "Set one value (creates the store if needed)",
        discussion: """
            Stores VALUE under KEY, replacing any value there. Without a type option VALUE is a string.
            Write a VALUE that starts with '-' after '--': stored write prefs.plist name -- --dash
            A key an administrator forces (a suite's forced file, or --forced FILE) is not written
            (status 7, naming the file); a key the --env-prefix environment hides is written, with a warning.
            """,
        options: ValueType.allCases.map { OptionSpec($0.rawValue, $0.help) } + LayerStack.options,
        examples: [
            "stored write prefs.plist volume 0.8 --double",
            "stored write prefs.sqlite launchCount 3 --int",
            #"stored write prefs.plist sidebar '{"order": ["home", "library"]}' --json"#,
        ],
        positionalCount: 3...3
    ) { arguments, console in
        let types = ValueType.allCases.filter { arguments.has($0.rawValue) }
        guard types.count <= 1 else {
            throw CLIError.usage("write", "Give one type option, not " + types.map { "--\($0)" }.joined(separator: " and "))
        }
        let location = try StoreLocation(arguments)
        let key = try validKey(arguments.positionals[1])
        let value = try ValueParser.parse(arguments.positionals[2], as: types.first ?? .string, key: key)
        let stack = try LayerStack(arguments, for: location, command: "write")
        let layers = stack.isEmpty ? nil : try stack.view()
        if let layers { try stack.requireUnforced([key], in: layers) }
        let store = try location.openForWriting()
        try store.transaction { $0.setStoredValue(value, forKey: key) }
        // Stored, but not what an app reads while the environment holds the key.
        if let layers { stack.warnAboutHiddenWrites([key], in: layers) }
        if location.kind == .plist,
            let loss = try? PlistBytes.firstInexactValue([key: value], format: location.existingPlistFormat)
        {
            console.error("warning: an XML plist keeps whole-second dates and plain NaN: \(PlistBytes.describe(loss)).")
        }
    }

    static let delete = Command(
        name: "delete",
        arguments: "STORE KEY... | STORE --all",
        summary: "Remove keys, or every key with --all",
        discussion: """
            Removes the keys without asking. If any KEY is missing nothing is removed (status 1).
            Clearing the whole store needs --all. If an administrator forces any key it would remove,
            nothing is removed (status 7, naming the file).
            """,
        options: [OptionSpec("all", "Remove every key.")] + LayerStack.options,
        examples: ["stored delete prefs.plist volume theme", "stored delete prefs.sqlite --all"],
        positionalCount: 1...Int.max
    ) { arguments, _ in
        let location = try StoreLocation(arguments)
        let keys = Array(arguments.positionals.dropFirst())
        let all = arguments.has("all")
        if all == !keys.isEmpty {
            throw CLIError.usage("delete", all ? "Give keys or --all, not both" : "Give the keys to delete, or --all")
        }
        let stack = try LayerStack(arguments, for: location, command: "delete")
        let layers = stack.isEmpty ? nil : try stack.view()
        if let layers { try stack.requireUnforced(keys, in: layers) }
        guard try location.exists else {
            if all { return }  // nothing to clear, and deleting must not create a store
            throw LayerStack.keyNotFound(keys[0], in: location, view: layers)
        }
        let store = try location.openForWriting()
        try store.transaction { transaction in
            let doomed = all ? transaction.keys : keys
            if let layers, all { try stack.requireUnforced(doomed, in: layers) }
            if let missing = doomed.first(where: { transaction.storedValue(forKey: $0) == nil }) {
                throw LayerStack.keyNotFound(missing, in: location, view: layers)
            }
            for key in doomed { transaction.setStoredValue(nil, forKey: key) }
        }
    }

    static let rename = Command(
        name: "rename",
        arguments: "STORE OLD NEW",
        summary: "Rename a key atomically",
        discussion: """
            Moves the value of OLD to NEW in one transaction. Fails (status 3) if NEW already exists,
            unless --overwrite is given. A forced OLD or NEW changes nothing (status 7); a NEW the
            --env-prefix environment hides is written, with a warning.
            """,
        options: [OptionSpec("overwrite", "Replace the value of NEW if it exists.")] + LayerStack.options,
        examples: ["stored rename prefs.plist tabs sidebar"],
        positionalCount: 3...3
    ) { arguments, _ in
        let location = try StoreLocation(arguments)
        let old = arguments.positionals[1]
        let new = try validKey(arguments.positionals[2])
        let stack = try LayerStack(arguments, for: location, command: "rename")
        let layers = stack.isEmpty ? nil : try stack.view()
        if let layers { try stack.requireUnforced([old, new], in: layers) }
        guard try location.exists else { throw LayerStack.keyNotFound(old, in: location, view: layers) }
        let store = try location.openForWriting()
        try store.transaction { transaction in
            guard let value = transaction.storedValue(forKey: old) else {
                throw LayerStack.keyNotFound(old, in: location, view: layers)
            }
            guard old != new else { return }
            if transaction.storedValue(forKey: new) != nil, !arguments.has("overwrite") {
                throw CLIError(
                    .invalidInput,
                    "Key '\(new)' already exists in '\(location.path)'. Delete it first or pass --overwrite.")
            }
            transaction.setStoredValue(nil, forKey: old)
            transaction.setStoredValue(value, forKey: new)
        }
        if let layers, old != new { stack.warnAboutHiddenWrites([new], in: layers) }
    }

    private static func validKey(_ key: String) throws(CLIError) -> String {
        guard !key.isEmpty else { throw CLIError.usage(nil, "KEY is empty; give a key name") }
        return key
    }
}
