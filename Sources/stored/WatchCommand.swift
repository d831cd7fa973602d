import Foundation
import StoredKit
import Synchronization

// `watch` observes a PreferenceStore, so it sees exactly what an app using StoredKit sees,
// other processes' writes included.
extension Command {
    static let watch = Command(
        name: "watch",
        arguments: "STORE [KEY...]",
        summary: "Print each change as it happens, other processes' included",
        discussion: """
            Prints one line per changed key, 'key: old -> new (origin)', until interrupted or, with
            --count N, after N changes. '(none)' stands for a missing value. KEYs limit the output to
            those keys. With --json each line is a JSON object: key, old, new (left out when there is no
            value), origin and time. 'Watching ...' goes to stderr once watching has started, and so
            does every diagnostics event as a 'warning:' line: a value that does not decode, a failed
            reload, a PostgreSQL connection lost and restored, a key that became forced.
            Changes are those of the values an app reads through the store's layers (see 'stored help
            read'): an administrator's edit of a forced or defaults file is one. A new value from a layer
            other than the user's store ends with that layer, '(external, forced:FILE)' (a line without one
            is the user's own value); when the store has layers, a JSON line has 'layer' and 'location'.
            A plist STORE that does not exist yet, while a layer holds values, is watched for as an app
            watches it: its layers' changes, then its own once it is written. A missing SQLite STORE
            is not created: the watch fails (status 5).
            """,
        options: [
            OptionSpec("json", "Print JSON lines."),
            OptionSpec("count", value: "N", "Exit after N changes."),
        ] + LayerStack.options,
        examples: [
            "stored watch prefs.sqlite", "stored watch com.example.app volume --count 1 --json",
            "stored watch prefs.plist --forced /etc/myapp/forced.plist",
        ],
        positionalCount: 1...Int.max
    ) { arguments, console in
        let location = try StoreLocation(arguments)
        let keys = Set(arguments.positionals.dropFirst())
        let limit = try changeLimit(arguments.value("count"))
        let stack = try LayerStack(arguments, for: location, command: "watch")
        let store = try location.openExisting(through: stack, watching: true)
        let printer = ChangePrinter(asJSON: arguments.has("json"), console: console, layers: stack.isEmpty ? nil : location)
        let finished = DispatchSemaphore(value: 0)
        // Subscribing now, before announcing, means no change after the announcement is missed.
        let changes = store.changes
        let diagnostics = store.diagnostics
        let watcher = Task {
            var seen = 0
            for await change in changes where keys.isEmpty || keys.contains(change.key) {
                printer.print(change)
                seen += 1
                if let limit, seen >= limit { break }
            }
            finished.signal()
        }
        let reporter = Task {
            for await event in diagnostics { console.error("warning: \(event)") }
        }
        console.error("Watching '\(location.path)'" + (limit.map { " for \($0) changes" } ?? " (Ctrl-C to stop)"))
        finished.wait()
        watcher.cancel()
        reporter.cancel()
    }

    private static func changeLimit(_ text: String?) throws(CLIError) -> Int? {
        guard let text else { return nil }
        guard let limit = Int(text), limit > 0 else {
            throw CLIError.usage("watch", "--count takes a positive whole number, not '\(text)'")
        }
        return limit
    }
}

/// Formats one change as a text line or a JSON line.
///
/// ```swift
/// ChangePrinter(asJSON: false, console: Console()).print(change)  //=> volume: 0.5 -> 0.8 (external)
/// ```
struct ChangePrinter: Sendable {
    let asJSON: Bool
    let console: Console
    /// The user's store, when it is read through layers: each line then names the layer of its new value.
    var layers: StoreLocation? = nil

    func print(_ change: Change) {
        console.print(asJSON ? json(change) : text(change))
    }

    func text(_ change: Change) -> String {
        let old = change.oldValue.map(ValuePrinter.oneLine) ?? "(none)"
        let new = change.newValue.map(ValuePrinter.oneLine) ?? "(none)"
        // The user's own values keep the form of a store without layers.
        let source =
            source(of: change).flatMap { $0.source == .user ? nil : ", " + SourcePrinter.origin($0.source, user: $0.location) }
            ?? ""
        return "\(ValuePrinter.keyText(change.key)): \(old) -> \(new) (\(change.origin)\(source))"
    }

    func json(_ change: Change) -> String {
        var fields: [String: StoredValue] = [
            "key": .string(change.key),
            "origin": .string("\(change.origin)"),
            "time": .string(Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
        ]
        fields["old"] = change.oldValue
        fields["new"] = change.newValue
        if let (source, location) = source(of: change) {
            fields.merge(SourcePrinter.fields(nil, source, user: location)) { _, layer in layer }
        }
        return StoredValueJSON.encode(.dictionary(fields))
    }

    /// The layer the new value comes from, as the change recorded it (asking the store when the
    /// line is printed would name a layer changed since); `nil` without layers, or when no layer
    /// holds the key any more.
    private func source(of change: Change) -> (source: ValueSource, location: StoreLocation)? {
        guard let location = layers, change.newValue != nil, let source = change.source else { return nil }
        return (source, location)
    }
}
