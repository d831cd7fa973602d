/// An option a command accepts: a flag such as `--all`, or an option with a value such as `--count N`.
///
/// ```swift
/// OptionSpec("count", value: "N", "Exit after N changes.").synopsis  //=> "--count N"
/// ```
struct OptionSpec: Sendable {
    let name: String
    /// The placeholder of the option's value; `nil` for a flag.
    let valueName: String?
    let help: String

    init(_ name: String, value valueName: String? = nil, _ help: String) {
        self.name = name
        self.valueName = valueName
        self.help = help
    }

    var synopsis: String { valueName.map { "--\(name) \($0)" } ?? "--\(name)" }
}

/// A command line split into positional arguments, flags and option values.
///
/// ```swift
/// let parsed = try ArgumentParser.parse(["prefs.plist", "n", "3", "--int"], for: Command.write)
/// parsed.positionals  //=> ["prefs.plist", "n", "3"]
/// parsed.has("int")  //=> true
/// try ArgumentParser.parse(["s", "--defaults", "a.plist", "--defaults", "b.plist"], for: Command.read).values("defaults")
/// //=> ["a.plist", "b.plist"]
/// ```
struct ParsedArguments: Sendable {
    var positionals: [String] = []
    var flags: Set<String> = []
    /// Every value of each option, in the order given: `--defaults A --defaults B` keeps both.
    var allValues: [String: [String]] = [:]

    func has(_ flag: String) -> Bool { flags.contains(flag) }
    /// The option's value; the last one when it was given more than once.
    func value(_ option: String) -> String? { allValues[option]?.last }
    /// Every value of a repeatable option, in order.
    func values(_ option: String) -> [String] { allValues[option] ?? [] }
}

/// The small, strict command-line parser of `stored`.
///
/// - `--name` is a flag, `--name VALUE` or `--name=VALUE` an option with a value, as the command declares.
/// - `-` alone is a positional argument (standard input or output), and so is a negative number
///   such as `-5` or `-0.5`, so `stored write s k -5 --int` works.
/// - `--` ends the options: everything after it is positional (`stored write s k -- --literal`).
/// - Anything else that starts with `-` is an unknown option: a usage error, never silently ignored.
enum ArgumentParser {
    static func parse(_ arguments: [String], for command: Command) throws(CLIError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !looksLikeOption(argument) {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let (name, inlineValue) = split(argument)
            guard let option = command.options.first(where: { $0.name == name }) else {
                throw unknownOption(argument, of: command)
            }
            guard option.valueName != nil else {
                if inlineValue != nil {
                    throw CLIError.usage(command.name, "Option '--\(name)' takes no value")
                }
                parsed.flags.insert(name)
                continue
            }
            if let inlineValue {
                parsed.allValues[name, default: []].append(inlineValue)
            } else if index < arguments.count {
                parsed.allValues[name, default: []].append(arguments[index])
                index += 1
            } else {
                throw CLIError.usage(command.name, "Option '\(option.synopsis)' needs a value")
            }
        }
        guard command.positionalCount.contains(parsed.positionals.count) else {
            throw CLIError.usage(
                command.name,
                "'stored \(command.name)' expects \(command.arguments), got \(describe(parsed.positionals.count))")
        }
        return parsed
    }

    /// Whether `argument` is an option rather than a value: `-` and negative numbers are values.
    private static func looksLikeOption(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), argument != "-" else { return false }
        let rest = argument.dropFirst()
        if let first = rest.first, first.isNumber || first == "." { return false }
        return true
    }

    private static func split(_ argument: String) -> (name: String, value: String?) {
        let body = argument.hasPrefix("--") ? argument.dropFirst(2) : argument.dropFirst()
        guard let equals = body.firstIndex(of: "=") else { return (String(body), nil) }
        return (String(body[..<equals]), String(body[body.index(after: equals)...]))
    }

    private static func unknownOption(_ argument: String, of command: Command) -> CLIError {
        let known = command.options.map { "--\($0.name)" }
        let accepted = known.isEmpty ? "it takes no options" : "it accepts " + known.joined(separator: ", ")
        return CLIError.usage(command.name, "Unknown option '\(argument)' for 'stored \(command.name)'; \(accepted)")
    }

    private static func describe(_ count: Int) -> String {
        switch count {
        case 0: "no arguments"
        case 1: "1 argument"
        default: "\(count) arguments"
        }
    }
}
