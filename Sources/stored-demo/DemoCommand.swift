import Foundation
import StoredKit
import TabKit

/// What the user asked `stored-demo` to do.
enum DemoCommand: Equatable {
    case show
    case hide(String)
    case reveal(String)
    case move(String, section: String, index: Int)
    case resetOrder
    case resetVisibility
    case select(Int)
    case watch(count: Int?)
    case addRoom(String)
    case removeRoom(String)
    case measureLatency(count: Int)

    static let usage = """
        usage: stored-demo [--store PATH] [--forced FILE] [COMMAND]
               stored-demo --shared URL [--namespace NAME] [--replica FILE] [--forced FILE] [COMMAND]

        Shows a smart-home sidebar whose customization persists in an embedded SQLite store, or
        with --shared in a PostgreSQL namespace that several machines share, through a local replica.

        commands:
          (none)                          in a terminal: the interactive sidebar (keys on its
                                          bottom line); otherwise print the sidebar
          hide ID                         hide a tab
          show ID                         show a tab
          move ID --to SECTION [--at N]   move a tab within or between sections (N from 0)
          reset-order                     forget every section and tab order
          reset-visibility                forget every hidden or shown tab
          select VALUE                    select the tab with this value
          watch [--count N]               re-render whenever the sidebar changes (also from
                                          other processes); stop after N changes
          add-room NAME                   add a room to the Rooms section
          remove-room NAME                remove a room (its customization is kept)
          measure-latency [N]             time N keystroke-to-redraw round trips of the
                                          interactive sidebar in a pseudo-terminal, locally and
                                          from another process (default 200; own temporary store)

        options:
          --store PATH                    the store file, SQLite or plist by its name or content
                                          (default: $XDG_DATA_HOME/stored-demo/prefs.sqlite)
          --forced FILE                   the administrator's forced plist: the keys it holds
                                          (rooms, sidebar, selection) are locked; edits to it
                                          show at once (default: \(standardForcedPath))
          --shared URL                    use the PostgreSQL server at URL (postgresql://user@host/db)
                                          instead of --store: windows on the same namespace stay in
                                          step; with the server down each works on its replica, says
                                          "offline — N changes not synced yet", and sends them when it
                                          is back, where the change made last wins
          --namespace NAME                the shared namespace (default: \(SharedStore.defaultNamespace))
          --replica FILE                  this window's replica, one per machine (default:
                                          $XDG_STATE_HOME/stored-demo/NAME.replica); give each
                                          window its own to play two machines on one
        """

    /// The forced file an administrator puts in place for the demo, where ``PreferenceStore/standard``
    /// puts a suite's (`/etc/storedkit/forced/<suite>.plist`, suite `stored-demo`). It need not exist:
    /// a missing file locks nothing.
    static let standardForcedPath = "/etc/storedkit/forced/stored-demo.plist"

    /// Parses the arguments after the program name; returns the command, the store path, the
    /// administrator's forced file and, with `--shared`, the shared namespace that replaces the store.
    static func parse(
        _ arguments: [String]
    ) throws(DemoError) -> (DemoCommand, store: URL, forced: URL, shared: SharedStore?) {
        var words: [String] = []
        var store: URL?
        var forced = URL(fileURLWithPath: standardForcedPath)
        var options: [String: String] = [:]
        var sharing: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                guard index + 1 < arguments.count else { throw .usage("\(argument) needs a value") }
                let value = arguments[index + 1]
                switch argument {
                case "--store": store = URL(fileURLWithPath: value)
                case "--shared", "--namespace", "--replica": sharing[argument] = value
                case "--forced": forced = URL(fileURLWithPath: value)
                case "--to", "--at", "--count": options[argument] = value
                default: throw .usage("unknown option \(argument)")
                }
                index += 2
            } else {
                words.append(argument)
                index += 1
            }
        }
        let shared = try sharedStore(sharing, store: store)
        return (try command(words, options), store ?? defaultStoreURL(), forced, shared)
    }

    /// The shared namespace `--shared`, `--namespace` and `--replica` name; `nil` without `--shared`.
    private static func sharedStore(_ options: [String: String], store: URL?) throws(DemoError) -> SharedStore? {
        guard let url = options["--shared"] else {
            if let option = ["--namespace", "--replica"].first(where: { options[$0] != nil }) {
                throw .usage("\(option) needs --shared URL (the server the replica mirrors)")
            }
            return nil
        }
        guard store == nil else {
            throw .usage("--store and --shared exclude each other: the shared sidebar lives on the server and its replica")
        }
        guard !url.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .usage("--shared needs the server's URL, such as postgresql://user@host/database")
        }
        let namespace = options["--namespace"] ?? SharedStore.defaultNamespace
        guard !namespace.isEmpty else { throw .usage("--namespace needs a name, such as \(SharedStore.defaultNamespace)") }
        if options["--replica"]?.isEmpty == true { throw .usage("--replica needs a file, such as ~/demo.replica") }
        let replica =
            options["--replica"].map { URL(fileURLWithPath: $0) } ?? SharedStore.defaultReplicaURL(namespace: namespace)
        return SharedStore(url: url, namespace: namespace, replica: replica)
    }

    private static func command(_ words: [String], _ options: [String: String]) throws(DemoError) -> DemoCommand {
        switch (words.first, words.count) {
        case (nil, _): return .show
        case ("hide", 2): return .hide(words[1])
        case ("show", 2): return .reveal(words[1])
        case ("move", 2):
            guard let section = options["--to"] else { throw .usage("move needs --to SECTION") }
            let index = try integer(options["--at"] ?? "0", for: "--at")
            return .move(words[1], section: section, index: index)
        case ("reset-order", 1): return .resetOrder
        case ("reset-visibility", 1): return .resetVisibility
        case ("select", 2): return .select(try integer(words[1], for: "select"))
        case ("watch", 1):
            guard let count = options["--count"] else { return .watch(count: nil) }
            return .watch(count: try integer(count, for: "--count"))
        case ("add-room", 1), ("remove-room", 1): throw .usage("\(words[0]) needs the room's NAME")
        case ("add-room", 2...): return .addRoom(words.dropFirst().joined(separator: " "))
        case ("remove-room", 2...): return .removeRoom(words.dropFirst().joined(separator: " "))
        case ("measure-latency", 1): return .measureLatency(count: 200)
        case ("measure-latency", 2):
            let count = try integer(words[1], for: "measure-latency")
            guard count > 0 else { throw .usage("measure-latency takes a count above 0, not \(count)") }
            return .measureLatency(count: count)
        case ("help", _): throw .help
        default: throw .usage("unknown command '\(words.joined(separator: " "))'")
        }
    }

    private static func integer(_ text: String, for name: String) throws(DemoError) -> Int {
        guard let value = Int(text) else { throw .usage("\(name) takes a whole number, not '\(text)'") }
        return value
    }

    /// The store's path as the title line shows it: the home directory as `~`.
    ///
    /// ```swift
    /// DemoCommand.displayPath(of: URL(fileURLWithPath: DemoCommand.homeDirectory + "/prefs.sqlite"))  //=> "~/prefs.sqlite"
    /// ```
    static func displayPath(of url: URL) -> String {
        let home = homeDirectory
        let path = url.path
        return !home.isEmpty && home != "/" && path.hasPrefix(home + "/") ? "~" + path.dropFirst(home.count) : path
    }

    /// `$XDG_DATA_HOME/stored-demo/prefs.sqlite`, or `~/.local/share/...` as the XDG spec says.
    static func defaultStoreURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: homeDirectory).appending(path: ".local/share")
        return base.appending(path: "stored-demo/prefs.sqlite")
    }

    /// `$HOME`, as the XDG spec and shells mean it; the account's home directory only when it is
    /// unset (Foundation's `NSHomeDirectory()` reads the password database and ignores `$HOME`).
    static var homeDirectory: String {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? ""
        return home.hasPrefix("/") ? home : NSHomeDirectory()
    }
}

/// Why `stored-demo` stopped.
enum DemoError: Error {
    case help
    case usage(String)
    case refused(String)
}
