import Foundation
import StoredKit

// `stored layers`: the stack a store is read through, highest first, and the state of each file.
extension Command {
    static let layers = Command(
        name: "layers",
        arguments: "STORE",
        summary: "List the layers a store is read through, highest first",
        discussion: """
            Prints one line per layer in the order a key resolves: forced, environment, the user's
            store, defaults. Each line shows the layer, its file (or the variables' prefix), whether the
            file exists (or how many variables are set) and whether it is read-only: every layer but the
            user's is, to StoredKit, and the user's is when its file, or the server's grants and access
            rules, forbid writing. A file that cannot be read is shown as unreadable (the reason goes to
            stderr, and to 'problem' in JSON), and a forced file the running user may write is reported on stderr.
            A suite name has the standard files of PreferenceStore.standard; the options add more.
            The store itself need not exist.
            """,
        options: [OptionSpec("json", "Print a JSON array of objects.")] + LayerStack.options,
        examples: [
            "stored layers com.example.app", "stored layers prefs.sqlite --forced /etc/myapp/forced.plist --env-prefix MYAPP_",
        ],
        positionalCount: 1...1
    ) { arguments, console in
        let location = try StoreLocation(arguments)
        let stack = try LayerStack(arguments, for: location, command: "layers")
        let view = try stack.view(warning: false)
        let problems = view.recentEvents.reduce(into: [String: String]()) { problems, event in
            if case .layerFileUnreadable(let path, let reason, _) = event { problems[path] = reason }
        }
        let rows =
            stack.upper.map { LayerRow($0, stack, problems) } + [try LayerRow(user: location)]
            + stack.lower.map { LayerRow($0, stack, problems) }
        if arguments.has("json") {
            console.print(StoredValueJSON.encode(.array(rows.map(\.json)), prettyPrinted: true))
        } else {
            console.print(LayerRow.table(rows))
        }
        for row in rows {
            if let problem = row.problem { console.error("warning: '\(row.location)' cannot be read: \(problem)") }
        }
        for case .forcedFileWritable(let path) in view.recentEvents {
            console.error("warning: the forced file '\(path)' can be written by you, so it locks nothing against you.")
        }
    }
}

/// One line of `stored layers`.
///
/// ```swift
/// LayerRow.table([row])  //=> "forced  /etc/storedkit/forced/app.plist  missing  read-only"
/// ```
struct LayerRow {
    let role: String
    let location: String
    /// `exists`, `missing`, `unreadable` (the reason is `problem`), or `N variables` for the environment.
    let state: String
    let exists: Bool
    let isReadOnly: Bool
    var problem: String? = nil

    init(_ layer: PreferenceLayer, _ stack: LayerStack, _ problems: [String: String]) {
        role = layer.role.description
        location = layer.location
        isReadOnly = true
        if let url = layer.fileURL {
            let path = url.path(percentEncoded: false)
            exists = FileManager.default.fileExists(atPath: path)
            problem = problems[path]
            state = problem == nil ? (exists ? "exists" : "missing") : "unreadable"
        } else {
            let count = layer.role == .environment ? stack.environmentVariables.count : 0
            exists = count > 0
            state = count == 1 ? "1 variable" : "\(count) variables"
        }
    }

    /// The user's store: the only layer anything writes, unless its file (or directory) forbids it.
    init(user location: StoreLocation) throws {
        role = "user"
        self.location = location.path
        exists = try location.exists
        state = exists ? "exists" : "missing"
        if location.server != nil {
            // The server decides: its grants and access rules, which an open of the namespace learns.
            isReadOnly = exists ? try location.openExisting().isReadOnly : false
        } else {
            let target = exists ? location.path : location.url.deletingLastPathComponent().path
            isReadOnly = access(target, W_OK) != 0
        }
    }

    var json: StoredValue {
        var fields: [String: StoredValue] = [
            "layer": .string(role), "location": .string(location), "exists": .bool(exists), "readOnly": .bool(isReadOnly),
        ]
        fields["problem"] = problem.map(StoredValue.string)
        return .dictionary(fields)
    }

    /// The rows as aligned columns.
    static func table(_ rows: [LayerRow]) -> String {
        let columns = rows.map { [$0.role, $0.location, $0.state, $0.isReadOnly ? "read-only" : "writable"] }
        let widths = (0..<3).map { index in columns.map { $0[index].count }.max() ?? 0 }
        return columns.map { row in
            (0..<3).map { row[$0] + String(repeating: " ", count: widths[$0] - row[$0].count + 2) }.joined() + row[3]
        }.joined(separator: "\n")
    }
}
