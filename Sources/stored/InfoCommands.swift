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
            For an offline replica (an SQLite file an app opened with .postgres(url:namespace:replica:)),
            also: the server (without its password) and namespace it mirrors, the revision it has read,
            its pending writes (how many, and when the oldest was queued), its last sync, its replica
            id, and the id of the replica it was copied from, if it is a copy (a copy, or a restored
            backup, takes an id of its own at its next open; until then it has none). The file is read
            as it is, read-only: nothing is created, sent or given an id. With --json, the same fields
            (server, namespace, revision, pendingWrites, oldestPendingWrite, lastSynced, replicaID,
            copiedFrom), each left out when it has no value.
            """,
        options: [OptionSpec("json", "Print a JSON object.")],
        examples: [
            "stored info prefs.sqlite", "stored info com.example.app --json", "stored info ~/.local/state/my-app/prefs.replica",
            "stored info postgresql://app@db/prefs --namespace user:42",
        ],
        positionalCount: 1...1
    ) { arguments, console in
        let location = try StoreLocation(arguments)
        let store = try location.openExisting()
        var fields = try location.server.map { try serverFields($0, store) } ?? fileFields(location, store)
        if let replica = try location.replica() { fields += replicaFields(replica) }
        if arguments.has("json") {
            let known = fields.compactMap { field in field.value.map { (field.key, $0) } }
            console.print(StoredValueJSON.encode(.dictionary(Dictionary(uniqueKeysWithValues: known))))
            return
        }
        let shown = fields.filter { !$0.name.isEmpty }
        let width = shown.map(\.name.count).max() ?? 0
        console.print(
            shown.map { field in
                let value = field.value.map { value in
                    if case .string(let string) = value { string } else { ValuePrinter.oneLine(value) }
                }
                let text = field.text ?? value ?? "unknown"
                let suffix = field.key == "size" ? " bytes" : ""
                return field.name + ":" + String(repeating: " ", count: width - field.name.count + 1) + text + suffix
            }.joined(separator: "\n"))
    }

    /// One line of `info`: its label (empty: JSON only), its JSON key and value (nil: left out of
    /// the JSON), and the text shown instead of the value, when it is not the value itself.
    private struct Field {
        var name: String
        var key: String
        var value: StoredValue?
        var text: String?

        init(_ name: String, _ key: String, _ value: StoredValue?, text: String? = nil) {
            (self.name, self.key, self.value, self.text) = (name, key, value, text)
        }
    }

    /// What an offline replica's own tables say: what it mirrors, its outbox, who it is.
    private static func replicaFields(_ replica: ReplicaInspection) -> [Field] {
        let never = "(not synchronized yet)"
        let oldest = replica.oldestPendingWrite.map { $0.formatted(.iso8601) }
        let id =
            replica.copiedFrom != nil && replica.replicaID == nil
            ? "(none yet: a copy takes its own at its next open)" : replica.replicaID.map { $0 } ?? "(none yet)"
        return [
            Field("replica of", "server", replica.server.map { .string($0) }, text: replica.server ?? never),
            Field("namespace", "namespace", replica.namespace.map { .string($0) }, text: replica.namespace ?? never),
            Field(
                "revision read", "revision", replica.revision.map { .int($0) }, text: replica.revision.map(String.init) ?? never),
            Field(
                "pending writes", "pendingWrites", .int(Int64(replica.pendingWrites)),
                text: "\(replica.pendingWrites)" + (oldest.map { " (oldest queued \($0))" } ?? "")),
            Field("", "oldestPendingWrite", oldest.map { .string($0) }),
            Field(
                "last synced", "lastSynced", replica.lastSynced.map { .string($0.formatted(.iso8601)) },
                text: replica.lastSynced.map { $0.formatted(.iso8601) } ?? "never"),
            Field("replica id", "replicaID", replica.replicaID.map { .string($0) }, text: id),
            Field(
                "copied from", "copiedFrom", replica.copiedFrom.map { .string($0) },
                text: replica.copiedFrom ?? "no (the original)"),
        ]
    }

    private static func fileFields(_ location: StoreLocation, _ store: PreferenceStore) -> [Field] {
        let files = [location.path] + (location.kind == .sqlite ? [location.path + "-wal"] : [])
        let attributes = files.compactMap { try? FileManager.default.attributesOfItem(atPath: $0) }
        let size = attributes.compactMap { ($0[.size] as? NSNumber)?.int64Value }.reduce(0, +)
        let modified = attributes.compactMap { $0[.modificationDate] as? Date }.max()
        let format = location.kind == .sqlite ? "sqlite3" : location.existingPlistFormat == .binary ? "binary" : "xml"
        return [
            Field("backend", "backend", .string(location.kind.name)),
            Field("path", "path", .string(location.path)),
            Field("format", "format", .string(format)),
            Field("size", "size", .int(size)),
            Field("keys", "keyCount", .int(Int64(store.keys.count))),
            Field("schema version", "schemaVersion", .int(Int64(store.schemaVersion))),
            Field("last modified", "lastModified", .string(modified.map { $0.formatted(.iso8601) } ?? "unknown")),
        ]
    }

    /// The server's fields: no path, size or modification time, but the revision.
    private static func serverFields(_ server: PostgresLocation, _ store: PreferenceStore) throws -> [Field] {
        let revision = try server.summary()?.revision ?? 0
        return [
            Field("backend", "backend", .string("postgresql")),
            Field("server", "server", .string(server.server)),
            Field("namespace", "namespace", .string(server.namespace)),
            Field("keys", "keyCount", .int(Int64(store.keys.count))),
            Field("schema version", "schemaVersion", .int(Int64(store.schemaVersion))),
            Field("revision", "revision", .int(revision)),
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
            An offline replica's own tables must hold what StoredKit writes there: a row of the outbox
            or of the stamps with columns of the wrong type, an outbox entry whose value does not
            decode, a sync row that names no namespace or server is damage (status 4, naming the file,
            the table and the key); 'stored sync' refuses such a replica, so nothing is sent. A stamp
            more than a day ahead of this machine's clock is status 3: the clock ran ahead when the
            write was made (a server clamps such a stamp), or the file was edited.
            """,
        examples: ["stored check prefs.sqlite && echo sound", "stored check ~/.local/state/my-app/prefs.replica"],
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
        let replica = try location.replica()
        if let replica { try requireConsistent(replica) }
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
        let mirrors = replica.map { replica in
            " replica of "
                + (replica.namespace.map { "namespace '\($0)' on \(replica.server ?? "?")" } ?? "a namespace not synchronized yet")
                + ", \(replica.pendingWrites) pending write\(replica.pendingWrites == 1 ? "" : "s")"
        }
        console.print("'\(location.path)' is sound: \(location.kind.name)\(mirrors ?? ""), \(keyCount(store.keys.count)).")
        for event in ambiguous { console.print("note: \(event)") }
    }

    /// Fails when an offline replica's tables contradict themselves: status 4 for damage (what
    /// `stored sync` refuses to send), status 3 for stamps from the future alone.
    static func requireConsistent(_ replica: ReplicaInspection) throws(CLIError) {
        let damage = replica.problems.filter { $0.kind == .damaged }
        if !damage.isEmpty {
            let keys = damage.compactMap(\.key)
            let remedy =
                keys.isEmpty
                ? "Restore a backup of the file, or remove it and let the app make a new replica (its pending writes are then lost)."
                : "Delete the rows named (sqlite3 '\(replica.path)' \"DELETE FROM replica_stamps WHERE key = '\(keys[0])'\"; "
                    + "that key's local write is then not sent), or restore a backup of the file."
            throw CLIError(
                .corruptStore,
                "'\(replica.path)' is a replica whose own tables contradict its outbox and values: \(listed(damage)). "
                    + "Nothing was sent. \(remedy)")
        }
        if !replica.problems.isEmpty {
            throw CLIError(
                .invalidInput,
                "'\(replica.path)' is an intact replica, but \(listed(replica.problems)). Check this machine's clock "
                    + "(timedatectl); a server records such a stamp at its own time plus the allowed skew.")
        }
    }

    /// The first problems, and how many more.
    private static func listed(_ problems: [ReplicaInspection.Problem]) -> String {
        problems.prefix(3).map(\.description).joined(separator: "; ")
            + (problems.count > 3 ? "; and \(problems.count - 3) more" : "")
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
