import StoredKit

/// Prints what `stored read` shows: values alone, or each with the layer it comes from, in text
/// (`forced:/etc/app/forced.plist<TAB>0.3`, like `git config --show-origin`) or JSON.
///
/// ```swift
/// SourcePrinter.origin(.forced(location: "/etc/app/forced.plist"), user: location)  //=> "forced:/etc/app/forced.plist"
/// ```
struct SourcePrinter {
    let store: PreferenceStore
    let location: StoreLocation
    let reading: ReadMode
    let asJSON: Bool

    func value(_ value: StoredValue) -> String {
        asJSON ? StoredValueJSON.encode(value, prettyPrinted: true) : ValuePrinter.lines(value).joined(separator: "\n")
    }

    func store(_ values: [String: StoredValue]) -> String {
        asJSON ? StoredValueJSON.encode(.dictionary(values), prettyPrinted: true) : ValuePrinter.store(values)
    }

    func sourcedValue(_ value: StoredValue, forKey key: String) -> String {
        let source = source(forKey: key)
        if asJSON { return StoredValueJSON.encode(.dictionary(Self.fields(value, source, user: location)), prettyPrinted: true) }
        return Self.origin(source, user: location) + "\t" + ValuePrinter.oneLine(value)
    }

    func sourcedStore(_ values: [String: StoredValue]) -> String {
        if asJSON {
            var described: [String: StoredValue] = [:]
            for (key, value) in values {
                described[key] = .dictionary(Self.fields(value, source(forKey: key), user: location))
            }
            return StoredValueJSON.encode(.dictionary(described), prettyPrinted: true)
        }
        return values.sorted { $0.key < $1.key }.map { key, value in
            Self.origin(source(forKey: key), user: location) + "\t" + ValuePrinter.keyText(key) + ": "
                + ValuePrinter.oneLine(value)
        }.joined(separator: "\n")
    }

    /// The store's own values are the user's layer even though that store has no layers.
    private func source(forKey key: String) -> ValueSource {
        reading == .user ? .user : store.source(forKey: key)
    }

    /// `forced:FILE`, `arguments`, `environment:VARIABLE`, `user:STORE`, `defaults:FILE`, `registered`, `default`.
    static func origin(_ source: ValueSource, user location: StoreLocation) -> String {
        let (layer, place) = parts(source, user: location)
        return place.map { "\(layer):\($0)" } ?? layer
    }

    /// The JSON form: `{"value": …, "layer": "forced", "location": "/etc/app/forced.plist"}`.
    static func fields(_ value: StoredValue?, _ source: ValueSource, user location: StoreLocation) -> [String: StoredValue] {
        let (layer, place) = parts(source, user: location)
        var fields: [String: StoredValue] = ["layer": .string(layer)]
        fields["value"] = value
        fields["location"] = place.map(StoredValue.string)
        return fields
    }

    private static func parts(_ source: ValueSource, user location: StoreLocation) -> (layer: String, place: String?) {
        switch source {
        case .forced(let file): ("forced", file)
        case .arguments: ("arguments", nil)
        case .environment(let variable): ("environment", variable)
        case .user: ("user", location.path)
        case .defaults(let file): ("defaults", file)
        case .registered: ("registered", nil)
        case .keyDefault: ("default", nil)
        }
    }
}
