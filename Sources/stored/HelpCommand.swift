// `stored help` and `stored help COMMAND`: the reference, including the exit statuses.
extension Command {
    static let help = Command(
        name: "help",
        arguments: "[COMMAND]",
        summary: "Show this overview, or the details of one command",
        discussion: "'stored COMMAND --help' shows the same details.",
        examples: ["stored help write"],
        positionalCount: 0...1
    ) { arguments, console in
        guard let name = arguments.positionals.first else { return console.print(HelpText.overview) }
        guard let command = Command.named(name) else { throw CLIError.usage(nil, "Unknown command '\(name)'") }
        console.print(HelpText.details(of: command))
    }
}

/// The text of `stored help`.
enum HelpText {
    static var overview: String {
        let width = Command.all.map { "\($0.name) \($0.arguments)".count }.max() ?? 0
        let commands = Command.all.map { command in
            let synopsis = "\(command.name) \(command.arguments)"
            return "  " + synopsis + String(repeating: " ", count: width - synopsis.count + 2) + command.summary
        }
        return """
            stored: inspect and edit StoredKit preference stores (plist, SQLite or PostgreSQL).

            Usage: stored COMMAND [ARGUMENTS] [OPTIONS]

            Commands:
            \(commands.joined(separator: "\n"))

            STORE is a file path, a suite name or a PostgreSQL server:
              *.plist                      a property-list store (XML or binary, as Foundation's UserDefaults writes)
              *.sqlite, *.sqlite3, *.db    an SQLite store
              any other path               detected by content; a new file becomes a plist
              NAME (no '/', no extension above)
                                           the suite NAME: $XDG_CONFIG_HOME/NAME.plist (default ~/.config),
                                           where Foundation's UserDefaults(suiteName: NAME) keeps it
              *.replica                    an offline replica of a PostgreSQL namespace (an SQLite store;
                                           info and check show what it mirrors and its outbox)
              postgresql://USER@HOST:PORT/DB, or libpq's 'host=HOST dbname=DB ...'
                                           the namespace --namespace NAME (default: default) on that
                                           server; the password (URL, PGPASSWORD, ~/.pgpass) is never shown
            Only commands that write (write, delete, rename, import, convert) create a missing store or namespace.
            Layers: a suite NAME is read as PreferenceStore.standard reads it, through its forced file
            (/etc/storedkit/forced/NAME.plist) and defaults files ($XDG_CONFIG_DIRS or /etc/xdg, and
            /usr/local/etc); --forced FILE, --defaults FILE and --env-prefix P add layers to any STORE
            (read, read-type, keys, find, layers, write, delete, rename, import, export --effective, watch).
            See 'stored help layers'.
            A corrupt store is never repaired or moved aside: commands stop with status 4.

            JSON (read --json, export, import, write --json, watch --json) is plain JSON where that is exact:
              numbers without '.' or exponent are integers, others reals; keys are sorted. Otherwise tagged:
              {"$date": "2024-05-01T10:00:00.25Z"}   {"$data": "<base64>"}   {"$double": "nan" | "inf" | "-inf"}
              A dictionary whose only key starts with '$' is written with one more '$' ({"$$date": 1}).

            Exit status:
              0  success
              1  key not found (also: find matched nothing)
              2  usage error: unknown command or option, wrong number of arguments, a layer file that cannot be read
              3  invalid value or input file (--int abc, malformed JSON or import file, a key that exists, a valid store file holding what StoredKit cannot read)
              4  corrupt store
              5  I/O or permission error, or a store that does not exist
              6  PostgreSQL server unreachable (not running, wrong host or port, starting up); try again later.
                 For sync: nothing was lost, the replica's writes wait in it and are sent by a later sync or app
              7  key forced by an administrator (a suite's forced file, or --forced FILE): nothing was written
              8  sync: the server refused some of the replica's writes (listed); the rest was synchronized
              130  ended by SIGINT (Ctrl-C), 143  ended by SIGTERM: pending writes flushed (at most 5 s), connections closed

            Errors go to stderr as one line naming the file or key and what to do.
            Run 'stored help COMMAND' for the options and examples of a command.
            """
    }

    static func details(of command: Command) -> String {
        var sections = ["Usage: \(command.usage)", command.summary + ".", command.discussion]
        if !command.options.isEmpty {
            let width = command.options.map(\.synopsis.count).max() ?? 0
            let options = command.options.map { option in
                "  " + option.synopsis + String(repeating: " ", count: width - option.synopsis.count + 2) + option.help
            }
            sections.append("Options:\n" + options.joined(separator: "\n"))
        }
        if !command.examples.isEmpty {
            sections.append("Examples:\n" + command.examples.map { "  " + $0 }.joined(separator: "\n"))
        }
        return sections.joined(separator: "\n\n")
    }
}
