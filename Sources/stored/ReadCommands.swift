import StoredKit

// Commands that only read: they never create, repair or move a store.
extension Command {
    static let readType = Command(
        name: "read-type",
        arguments: "STORE KEY",
        summary: "Print the type of one value",
        discussion: """
            Prints one of: string, integer, real, boolean, date, data, array, dictionary.
            The value is read through the store's layers, as 'read' reads it.
            """,
        options: LayerStack.options,
        examples: ["stored read-type prefs.plist volume"],
        positionalCount: 2...2
    ) { arguments, console in
        let location = try StoreLocation(arguments)
        let store = try location.openExisting(through: LayerStack(arguments, for: location, command: "read-type"))
        console.print(try storedValue(store, arguments.positionals[1], location).typeName)
    }

    static let keys = Command(
        name: "keys",
        arguments: "STORE",
        summary: "Print every key, one a line",
        discussion: """
            Prints the keys sorted; with --json, a JSON array of strings. Keys of the store's layers
            count, as 'read' shows them; --user lists the store's own keys only.
            """,
        options: [OptionSpec("json", "Print a JSON array."), OptionSpec("user", "List the store's own keys only.")]
            + LayerStack.options,
        examples: ["stored keys prefs.sqlite", "stored keys com.example.app --user"],
        positionalCount: 1...1
    ) { arguments, console in
        let location = try StoreLocation(arguments)
        let stack = try LayerStack(arguments, for: location, command: "keys")
        let store = arguments.has("user") ? try location.openExisting() : try location.openExisting(through: stack)
        let keys = store.keys
        if arguments.has("json") {
            console.print(StoredValueJSON.encode(.array(keys.map(StoredValue.string))))
        } else if !keys.isEmpty {
            console.print(keys.map(ValuePrinter.lineSafeKey).joined(separator: "\n"))
        }
    }

    static let find = Command(
        name: "find",
        arguments: "STORE WORD",
        summary: "Print the keys and values that contain WORD",
        discussion: """
            Searches key names, nested dictionary keys and every scalar value as 'read' prints it
            (strings without quotes), ignoring case, and prints each matching top-level entry.
            Exits with status 1 when nothing matches. Values are read through the store's layers, as 'read'
            reads them.
            """,
        options: LayerStack.options,
        examples: ["stored find prefs.plist home"],
        positionalCount: 2...2
    ) { arguments, console in
        let location = try StoreLocation(arguments)
        let word = arguments.positionals[1]
        let store = try location.openExisting(through: LayerStack(arguments, for: location, command: "find"))
        let matches = store.dictionaryRepresentation().filter { key, value in
            contains(word, inKey: key) || contains(word, in: value)
        }
        guard !matches.isEmpty else {
            throw CLIError(.keyNotFound, "No key or value in '\(location.path)' contains '\(word)'.")
        }
        console.print(ValuePrinter.store(matches))
    }

    /// The value of `key`, or a key-not-found error that suggests `stored keys`.
    static func storedValue(_ store: PreferenceStore, _ key: String, _ location: StoreLocation) throws -> StoredValue {
        guard let value = store.storedValue(forKey: key) else { throw CLIError.keyNotFound(key, in: location) }
        return value
    }

    private static func contains(_ word: String, inKey key: String) -> Bool {
        key.localizedCaseInsensitiveContains(word)
    }

    /// Whether `word` is in a key or scalar of `value`, found with a work list (no recursion).
    private static func contains(_ word: String, in value: StoredValue) -> Bool {
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let members):
                if members.keys.contains(where: { contains(word, inKey: $0) }) { return true }
                pending.append(contentsOf: members.values)
            default:
                if ValuePrinter.searchableText(next)?.localizedCaseInsensitiveContains(word) == true { return true }
            }
        }
        return false
    }
}
