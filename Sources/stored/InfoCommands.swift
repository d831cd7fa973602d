import Foundation
import StoredKit

// Commands about the store as a file: what it is and whether it is sound.
extension Command {
    static let info = Command(
        name: "info",
        arguments: "STORE",
        summary: "Show backend, path, format, size, key count, schema version, last change",
        discussion: """
            For SQLite, size is the database file and the write-ahead log, and the last change is
            the later of the two files' modification times. For PostgreSQL: the server (without its
            password), the namespace, its keys, schema version and revision (its commits so far).
            """,
        options: [OptionSpec("json", "Print a JSON object.")],
        examples: [
            "stored info prefs.sqlite", "stored info com.example.app --json",
            "stored info postgresql://app@db/prefs --namespace user:42",
        ],
        positionalCount: 1...1
    ) { arguments, console in
        let location = try StoreLocation(arguments)
        let store = try location.openExisting()
        let fields = try location.server.map { try serverFields($0, store) } ?? fileFields(location, store)
        if arguments.has("json") {
            console.print(
                StoredValueJSON.encode(.dictionary(Dictionary(uniqueKeysWithValues: fields.map { ($0.key, $0.value) }))))
            return
        }
        let width = fields.map(\.name.count).max() ?? 0
        console.print(
            fields.map { field in
                let text = if case .string(let string) = field.value { string } else { ValuePrinter.oneLine(field.value) }
                let suffix = field.key == "size" ? " bytes" : ""
                return field.name + ":" + String(repeating: " ", count: width - field.name.count + 1) + text + suffix
            }.joined(separator: "\n"))
    }

    private typealias Field = (name: String, key: String, value: StoredValue)

    private static func fileFields(_ location: StoreLocation, _ store: PreferenceStore) -> [Field] {
        let files = [location.path] + (location.kind == .sqlite ? [location.path + "-wal"] : [])
        let attributes = files.compactMap { try? FileManager.default.attributesOfItem(atPath: $0) }
        let size = attributes.compactMap { ($0[.size] as? NSNumber)?.int64Value }.reduce(0, +)
        let modified = attributes.compactMap { $0[.modificationDate] as? Date }.max()
        let format = location.kind == .sqlite ? "sqlite3" : location.existingPlistFormat == .binary ? "binary" : "xml"
        return [
            ("backend", "backend", .string(location.kind.name)),
            ("path", "path", .string(location.path)),
            ("format", "format", .string(format)),
            ("size", "size", .int(size)),
            ("keys", "keyCount", .int(Int64(store.keys.count))),
            ("schema version", "schemaVersion", .int(Int64(store.schemaVersion))),
            ("last modified", "lastModified", .string(modified.map { $0.formatted(.iso8601) } ?? "unknown")),
        ]
    }

    /// The server's fields: no path, size or modification time, but the revision.
    private static func serverFields(_ server: PostgresLocation, _ store: PreferenceStore) throws -> [Field] {
        let revision = try server.summary()?.revision ?? 0
        return [
            ("backend", "backend", .string("postgresql")),
            ("server", "server", .string(server.server)),
            ("namespace", "namespace", .string(server.namespace)),
            ("keys", "keyCount", .int(Int64(store.keys.count))),
            ("schema version", "schemaVersion", .int(Int64(store.schemaVersion))),
            ("revision", "revision", .int(revision)),
        ]
    }

    static let check = Command(
        name: "check",
        arguments: "STORE",
        summary: "Check the store's integrity (status 4 and the problem if damaged)",
        discussion: """
            A plist must parse completely. An SQLite store must pass PRAGMA quick_check and every
            row must decode; so must every row of a PostgreSQL namespace. Nothing is repaired,
            moved or rewritten. Valid data StoredKit does not read (a value nested deeper than 512
            levels, a UID, an integer beyond 64 bits) is called intact, with status 3.
            """,
        examples: ["stored check prefs.sqlite && echo sound"],
        positionalCount: 1...1
    ) { arguments, console in
        let location = try StoreLocation(arguments)
        try location.requireExisting()
        // Zero bytes is what a crash or `touch` leaves: no reader calls it a property list, yet a
        // store opens it as empty. Say which it is rather than "sound".
        if location.kind == .plist, (try? FileManager.default.attributesOfItem(atPath: location.path)[.size] as? Int) == 0 {
            throw CLIError(
                .invalidInput,
                "'\(location.path)' is an empty file (0 bytes), not a property list yet. A store opens it as empty "
                    + "and its first write makes it a real one; 'stored write' or 'stored import' does that now.")
        }
        if location.kind == .sqlite {
            let problems = try SQLiteBackend(at: location.url, corruption: .fail).quickCheck()
            if !problems.isEmpty { throw damaged(location, problems) }
        }
        let store = try location.openExisting()
        // Keys equal in Swift but not in bytes are an ambiguity, not damage: both are in the file.
        let ambiguous = store.recentEvents.filter { if case .equivalentKeys = $0 { true } else { false } }
        let unreadable = store.recentEvents.filter { if case .equivalentKeys = $0 { false } else { true } }
        // A value nested deeper than StoredKit reads is valid data, as a too-deep plist file is: kept, not damaged.
        let tooDeep = unreadable.filter {
            if case .decodingFailed(_, _, StoredValueJSON.tooDeepFound) = $0 { true } else { false }
        }
        if !unreadable.isEmpty, tooDeep.count < unreadable.count { throw damaged(location, unreadable.map(\.description)) }
        if !tooDeep.isEmpty {
            let keys = tooDeep.compactMap { if case .decodingFailed(let key, _, _) = $0 { "'\(key)'" } else { nil } }
            throw CLIError(
                .invalidInput,
                "'\(location.path)' is intact, but \(keys.count == 1 ? "key" : "keys") \(keys.prefix(3).joined(separator: ", ")) "
                    + "\(keys.count == 1 ? "holds a value" : "hold values") \(StoredValue.tooDeepPhrase), "
                    + "which StoredKit does not read; they are kept as they are. "
                    + "Flatten them with the program that wrote them, or delete them with 'stored delete'.")
        }
        console.print("'\(location.path)' is sound: \(location.kind.name), \(keyCount(store.keys.count)).")
        for event in ambiguous { console.print("note: \(event)") }
    }

    /// "1 key", "3 keys".
    static func keyCount(_ count: Int) -> String { count == 1 ? "1 key" : "\(count) keys" }

    private static func damaged(_ location: StoreLocation, _ problems: [String]) -> CLIError {
        let shown = problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; and \(problems.count - 3) more" : "")
        // SQLite's own explanations of an unreadable file already say what to do.
        let advice = shown.contains("backup") ? "." : ". Restore a backup, or export what is still readable with 'stored export'."
        return CLIError(.corruptStore, "'\(location.path)' failed the integrity check: \(shown)\(advice)")
    }
}
