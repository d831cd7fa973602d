/// Reads `-name value` pairs from a program's arguments, the way UserDefaults does (see
/// ``PreferenceLayer/arguments(_:)`` for the rules).
enum LaunchArguments {
    static func parse(_ arguments: [String]) -> [String: String] {
        var values: [String: String] = [:]
        var index = 1  // element 0 is the program's path
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 1, index + 1 < arguments.count
            else {
                index += 1
                continue
            }
            values[String(argument.dropFirst())] = arguments[index + 1]
            index += 2
        }
        return values
    }
}
