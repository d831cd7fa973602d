import StoredKit
import StoredKitPostgres

// `namespaces`: what a PostgreSQL database holds, as `defaults domains` lists the suites.
extension Command {
    static let namespaces = Command(
        name: "namespaces",
        arguments: "URL",
        summary: "List a PostgreSQL server's namespaces: keys and schema version",
        discussion: """
            Prints one line per namespace, sorted: 'NAME: N keys, schema version V'. With --json, an
            array of objects with name, keyCount, schemaVersion and revision. A database StoredKit
            never wrote to has none. Reads only: no table or namespace is created.
            """,
        options: [OptionSpec("json", "Print a JSON array.")],
        examples: [
            "stored namespaces postgresql://app@db/prefs", "stored namespaces 'host=/run/postgresql dbname=prefs' --json",
        ],
        positionalCount: 1...1
    ) { arguments, console in
        let server = try PostgresLocation(server: arguments.positionals[0], for: "namespaces")
        let namespaces = try PostgresNamespaceSummary.all(url: server.url)
        if arguments.has("json") {
            let objects = namespaces.map { namespace -> StoredValue in
                .dictionary([
                    "name": .string(namespace.name), "keyCount": .int(Int64(namespace.keyCount)),
                    "schemaVersion": .int(Int64(namespace.schemaVersion)), "revision": .int(namespace.revision),
                ])
            }
            return console.print(StoredValueJSON.encode(.array(objects)))
        }
        guard !namespaces.isEmpty else {
            // The access rules may hide every namespace from this role: that is not "none yet".
            if let role = try PostgresAccess.limitedRole(url: server.url) {
                return console.error(
                    "\(server.server) holds no namespace that the access rules of '\(role)' cover (it sees only "
                        + "those); 'stored access URL list' shows its rules.")
            }
            return console.error(
                "\(server.server) holds no StoredKit namespace yet; 'stored write' or 'stored import' creates one.")
        }
        console.print(
            namespaces.map { namespace in
                "\(ValuePrinter.keyText(namespace.name)): \(keyCount(namespace.keyCount)), schema version \(namespace.schemaVersion)"
            }.joined(separator: "\n"))
    }
}
