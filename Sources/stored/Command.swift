import Foundation
import StoredKit

/// One `stored` subcommand: what it accepts, its help, and what it does.
///
/// ```swift
/// Command.all.map(\.name)  //=> ["read", "read-type", "write", ...]
/// ```
struct Command: Sendable {
    let name: String
    /// The positional arguments as shown in help, e.g. `STORE [KEY]`.
    let arguments: String
    let summary: String
    /// Paragraphs shown by `stored help NAME`.
    let discussion: String
    var options: [OptionSpec] = []
    var examples: [String] = []
    /// How many positional arguments the command takes.
    let positionalCount: ClosedRange<Int>
    let run: @Sendable (ParsedArguments, Console) throws -> Void

    /// Every command, in the order `stored help` lists them.
    /// Every command that takes a STORE also takes `--namespace`, for a PostgreSQL one.
    static let all: [Command] =
        ([
            .read, .readType, .write, .delete, .rename, .keys, .find, .layers,
            .export, .import, .watch, .info, .check, .convert, .namespaces, .sync, .postgresSetup, .access, .help,
        ] as [Command]).map { command in
            guard command.arguments.contains("STORE") || command.name == "convert" else { return command }
            var withNamespace = command
            withNamespace.options.append(.namespace)
            return withNamespace
        }

    static func named(_ name: String) -> Command? { all.first { $0.name == name } }

    var usage: String {
        let options = options.isEmpty ? "" : " [options]"
        return "stored \(name) \(arguments)\(options)"
    }
}

/// Standard output and error. Writes go straight to the file descriptors, so a line printed by
/// `watch` is visible to a pipe at once.
///
/// ```swift
/// Console().print("volume: 0.5")
/// ```
struct Console: Sendable {
    /// Writes `text` and a line break to stdout. Keys and values in it come from files the user
    /// may not control, so what a terminal must not get is spelled out as on stderr (``error(_:)``);
    /// inside JSON strings, the only place such scalars can be, that is JSON's own escape, so the
    /// output reads back the same.
    func print(_ text: String) {
        let spelled = Self.spellingOutControlCharacters(text)
        write(spelled.hasSuffix("\n") ? spelled : spelled + "\n", to: FileHandle.standardOutput)
    }

    func write(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    /// Writes one diagnostic line to stderr. Its text may quote a file the user does not control
    /// (an administrator's forced file, a corrupt store) or a key: control characters other than line
    /// breaks and tabs, and bidirectional overrides and isolates (U+202E), are spelled as JSON spells
    /// them (`\u001b`, `\u202e`), so they can neither drive the terminal nor reorder the line.
    func error(_ text: String) {
        write("stored: " + Self.spellingOutControlCharacters(text) + "\n", to: FileHandle.standardError)
    }

    /// `text` with every scalar a terminal must not get (``Unicode/Scalar/isUnsafeOnTerminal``)
    /// but line breaks and tabs spelled out.
    static func spellingOutControlCharacters(_ text: String) -> String {
        var spelled = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.isUnsafeOnTerminal, scalar != "\n", scalar != "\t" {
                let hex = String(scalar.value, radix: 16)
                spelled.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
            } else {
                spelled.append(scalar)
            }
        }
        return String(spelled)
    }

    private func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(text.utf8))
    }
}

/// Runs one command line and turns its outcome into an exit status.
///
/// ```swift
/// StoredCLI.run(["read", "prefs.plist", "volume"])  //=> 0, after printing 0.8
/// ```
enum StoredCLI {
    static func run(_ arguments: [String], console: Console = Console()) -> Int32 {
        do {
            try dispatch(arguments, console: console)
            return ExitCode.success.rawValue
        } catch {
            let failure = CLIError(error)
            console.error(failure.message)
            return failure.exitCode.rawValue
        }
    }

    private static func dispatch(_ arguments: [String], console: Console) throws {
        guard let name = arguments.first else {
            throw CLIError.usage(nil, "Missing command")
        }
        if name == "--help" || name == "-h" {
            console.print(HelpText.overview)
            return
        }
        guard let command = Command.named(name) else {
            throw CLIError.usage(nil, "Unknown command '\(name)'")
        }
        let rest = Array(arguments.dropFirst())
        let beforeSeparator = rest.prefix { $0 != "--" }
        if beforeSeparator.contains("--help") || beforeSeparator.contains("-h") {
            console.print(HelpText.details(of: command))
            return
        }
        try command.run(try ArgumentParser.parse(rest, for: command), console)
    }
}
