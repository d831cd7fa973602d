import Foundation
import StoredKit
import StoredKitPostgres

/// What a `STORE` argument names: a file path, a suite name in Foundation's UserDefaults
/// location, or a namespace on a PostgreSQL server.
///
/// - A path ending in `.plist` is a plist store; `.sqlite`, `.sqlite3` or `.db` an SQLite store;
///   any other path is detected by content (a missing or empty one becomes a plist). An offline
///   replica's file (`prefs.replica`) is an SQLite store with tables of its own (``replica()``).
/// - An argument without `/` and without one of those extensions is a suite name:
///   `com.example.app` → `$XDG_CONFIG_HOME/com.example.app.plist` (default `~/.config`).
///   Write `./name` for a file in the current directory.
/// - A `postgresql://` (or `postgres://`) URL or a libpq `key=value` string is a server; the
///   namespace is `--namespace NAME` (default `default`). Messages never show its password.
///
/// ```swift
/// StoreLocation("prefs.sqlite").kind  //=> .sqlite
/// StoreLocation("com.example.app").path  //=> "/root/.config/com.example.app.plist"
/// StoreLocation("postgresql://app:pw@db/prefs", namespace: "u1").path  //=> "postgresql://app@db/prefs (namespace u1)"
/// ```
struct StoreLocation: Sendable {
    /// The backends a STORE can name.
    enum Kind: Sendable, Equatable {
        case plist, sqlite
        case postgresql(PostgresLocation)

        /// What `info` and `check` print.
        var name: String {
            switch self {
            case .plist: "plist"
            case .sqlite: "sqlite"
            case .postgresql: "postgresql"
            }
        }
    }

    /// The argument as the user wrote it (a server's without its password), for messages that
    /// suggest a next command.
    let argument: String
    /// The file of a plist or SQLite store; for a server, unused.
    let url: URL
    let kind: Kind
    let isSuite: Bool

    /// The server, for a PostgreSQL STORE.
    var server: PostgresLocation? {
        if case .postgresql(let server) = kind { server } else { nil }
    }

    init(
        _ argument: String, namespace: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CLIError) {
        guard !argument.isEmpty else { throw CLIError.usage(nil, "STORE is empty; give a file path or a suite name") }
        if PostgresLocation.isServer(argument) {
            let server = try PostgresLocation(argument, namespace: namespace ?? "default")
            self.argument = server.shownArgument
            url = URL(fileURLWithPath: "/")
            kind = .postgresql(server)
            isSuite = false
            return
        }
        self.argument = argument
        let pathExtension = (argument as NSString).pathExtension.lowercased()
        // `prefs.replica` is how the library's documentation names an offline replica's file.
        isSuite =
            !argument.contains("/") && StoreFileFormat.fileExtensions[pathExtension] == nil
            && pathExtension != Self.replicaExtension
        url =
            isSuite
            ? PlistBackend.fileURL(forSuite: argument, environment: environment)
            : URL(fileURLWithPath: argument).standardizedFileURL
        kind = StoreFileFormat(detecting: url) == .sqlite ? .sqlite : .plist
    }

    /// The first positional STORE of a command line, with its `--namespace`, which only a server takes.
    init(_ arguments: ParsedArguments) throws(CLIError) {
        let namespace = arguments.value("namespace")
        try self.init(arguments.positionals[0], namespace: namespace)
        if let namespace, server == nil {
            throw CLIError.usage(nil, "--namespace \(namespace) applies to a PostgreSQL STORE; '\(path)' is a file")
        }
    }

    /// The extension of an offline replica's file (an SQLite store with the replica's tables).
    static let replicaExtension = "replica"

    /// The offline replica this SQLite file is, read without changing it; nil for any other store.
    func replica() throws -> ReplicaInspection? {
        guard kind == .sqlite, ReplicaInspection.isReplica(path: path) else { return nil }
        return try ReplicaInspection(path: path)
    }

    /// What messages name: the file's path, or the server (no password) and namespace.
    var path: String { server?.description ?? url.path }

    /// Whether the store exists: the file, or the namespace on the server (which is asked).
    var exists: Bool {
        get throws {
            if let server { return try server.summary() != nil }
            return FileManager.default.fileExists(atPath: path)
        }
    }

    /// The plist encoding of the file as it is now: binary when it starts with `bplist`.
    var existingPlistFormat: PlistFormat {
        PlistFormat(ofFileAt: path)
    }

    /// Fails with exit status 5 unless the store exists: commands that only read never create one.
    func requireExisting() throws {
        guard try !exists else { return }
        if let server {
            throw CLIError(
                .inputOutput,
                "\(server.server) has no namespace '\(server.namespace)'. Run 'stored namespaces \(server.server)' to list them; "
                    + "only commands that write create one.")
        }
        let what = isSuite ? "Suite '\(argument)' has no store at '\(path)'" : "'\(path)' does not exist"
        throw CLIError(.inputOutput, "\(what). Check the path or suite name; only commands that write create a store.")
    }

    /// A backend for the file. A corrupt file makes every operation fail (never moved aside or
    /// rewritten), so that a command leaves a damaged store exactly as it found it.
    ///
    /// A plist keeps its current encoding unless `plistFormat` asks for another. An offline
    /// replica's file is written (`forWriting`) as its app writes it, through ``ReplicaFile``: each
    /// write stamped and queued in its outbox, so the app or `stored sync` sends it. Written as a
    /// plain SQLite store, it would hold a value no server ever hears of. Reading it goes through the
    /// plain SQLite store, which changes nothing (a replica's own open gives a copy an id).
    func backend(
        plistFormat: PlistFormat? = nil, creating: Bool = true, forWriting: Bool = false
    ) throws(CLIError) -> any Backend {
        switch kind {
        case .postgresql(let server):
            return PostgresBackend.postgres(url: server.url, namespace: server.namespace)
        case .plist:
            return PlistBackend(at: url, format: plistFormat ?? existingPlistFormat, corruption: .fail)
        case .sqlite:
            try requireStoredKitDatabase(allowEmpty: creating)
            if forWriting, ReplicaInspection.isReplica(path: path) { return ReplicaFile(at: url, corruption: .fail) }
            return SQLiteBackend(at: url, corruption: .fail)
        }
    }

    /// Opens an existing store for reading. A command that runs once does not watch for other
    /// processes (`watch` asks to): its own commit would otherwise wake its watcher, which can then
    /// hold the backend past the command, so the process exits before SQLite folds its log into
    /// the file and a copy of the file alone misses the write.
    func openExisting(watching: Bool = false) throws -> PreferenceStore {
        try requireExisting()
        let store = try PreferenceStore(backend(creating: false), durability: .immediate)
        if !watching { store.backend.stopWatching() }
        return store
    }

    /// Opens an existing store that reads each key through `stack` too: the effective values an
    /// app with those layers sees. A layer file that cannot be read is empty, as the library reads
    /// it, with a warning.
    ///
    /// A store that does not exist yet reads, to an app, as its layers alone: so does this, when
    /// a layer holds a value (with none, the store's absence is the answer: status 5). A watch of
    /// a missing plist store watches for the file as an app does (reading a missing plist creates
    /// nothing); an SQLite file would be created by its opening, so a watch still needs it.
    func openExisting(through stack: LayerStack, watching: Bool = false) throws -> PreferenceStore {
        guard !stack.isEmpty else { return try openExisting(watching: watching) }
        if try !exists {
            let view = try stack.view(warning: false)
            let layersHoldValues = !view.keys.isEmpty || !stack.environmentVariables.isEmpty
            if !layersHoldValues || (watching && kind != .plist) { try requireExisting() }
            if !watching {
                stack.warnAboutUnreadableFiles(view)
                return view
            }
        }
        let store = try PreferenceStore(backend(creating: false), layers: stack.layers, durability: .immediate)
        if !watching { store.backend.stopWatching() }
        stack.warnAboutUnreadableFiles(store)
        return store
    }

    /// Opens the store for writing, creating it when it does not exist yet. Every write is
    /// durable when the command ends.
    func openForWriting(plistFormat: PlistFormat? = nil) throws -> PreferenceStore {
        let store = try PreferenceStore(backend(plistFormat: plistFormat, forWriting: true), durability: .immediate)
        store.backend.stopWatching()
        return store
    }

    /// The SQLite backend sets up its tables in any database whose `application_id` is 0, and
    /// switches it to WAL. So that no command alters another program's database (nor a reading
    /// command an empty file), the header is checked first: a StoredKit store is always in WAL
    /// mode (header bytes 18 and 19 are 2) and, once checkpointed, has the application ID `StK1`.
    private func requireStoredKitDatabase(allowEmpty: Bool) throws(CLIError) {
        guard FileManager.default.fileExists(atPath: path) else { return }  // missing: created by writes only
        let header = [UInt8](FileSystem.firstBytes(of: path, count: 100))
        if header.isEmpty {
            // Unreadable, or not a regular file: the backend says why.
            let attributes = (try? FileManager.default.attributesOfItem(atPath: path)) ?? [:]
            let isEmptyFile = attributes[.type] as? FileAttributeType == .typeRegular && attributes[.size] as? Int == 0
            guard !allowEmpty, isEmptyFile else { return }
            throw CLIError(
                .invalidInput, "'\(path)' is an empty file, not a store yet. 'stored write' or 'stored import' creates one.")
        }
        // Not a database at all: the backend reports it as corrupt without touching it.
        guard header.count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else { return }
        let applicationID = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let isWriteAheadLogged = header[18] == 2 && header[19] == 2
        guard applicationID != Self.storedKitApplicationID, applicationID != 0 || !isWriteAheadLogged else { return }
        // A file with a schema (nonzero schema cookie) but no application ID may be a StoredKit store
        // restored from a text dump: the backend recognises its tables and refuses it, changing
        // nothing, with the way to restore it properly.
        let schemaCookie = header[40..<44].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard applicationID != 0 || schemaCookie == 0 else { return }
        throw CLIError(
            .invalidInput,
            "'\(path)' is an SQLite database of another program, not a StoredKit store; nothing was changed. "
                + "Choose a StoredKit store, or a new file name.")
    }

    /// `PRAGMA application_id` of StoredKit's SQLite files: the ASCII bytes `StK1`.
    private static let storedKitApplicationID: UInt32 = 0x5374_4B31
}
