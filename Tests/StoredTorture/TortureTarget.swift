import Foundation
import StoredKit
import StoredKitPostgres

/// What a child process opens: a store file by path, or a namespace on a PostgreSQL server,
/// written `postgresql://…#namespace` so one argument carries both (libpq never sees the `#`).
///
/// ```swift
/// TortureTarget("postgresql://postgres@127.0.0.1:5432/postgres#kill-3").namespace  //=> "kill-3"
/// try TortureTarget("/tmp/t/prefs.sqlite").open()  // an SQLite store
/// ```
struct TortureTarget {
    let argument: String

    init(_ argument: String) { self.argument = argument }

    /// `url` + `#namespace`: the argument that names a namespace on a server.
    static func postgres(url: String, namespace: String) -> String { url + "#" + namespace }

    var isPostgres: Bool { argument.hasPrefix("postgresql://") }

    /// The server URL and namespace of a PostgreSQL target.
    var url: String { String(argument.prefix { $0 != "#" }) }
    var namespace: String { argument.firstIndex(of: "#").map { String(argument[argument.index(after: $0)...]) } ?? "default" }

    /// Opens the store; `corruption` applies to a file (a server has no file to damage).
    func open(durability: Durability = .deferred, corruption: CorruptionPolicy = .quarantine) throws -> PreferenceStore {
        if isPostgres { return try PreferenceStore(.postgres(url: url, namespace: namespace), durability: durability) }
        return try PreferenceStore(fileAt: URL(fileURLWithPath: argument), durability: durability, corruption: corruption)
    }
}
