/// A store's layers other than its own backend, as loaded now, and what each says about each key
/// read so far. Lives in the store's state, under its lock; a transaction takes a copy.
struct LayerTable: Sendable {
    /// One layer's current contents: keys for files, memory and arguments; variable names for the environment.
    struct Layer: Sendable {
        let layer: PreferenceLayer
        var values: [String: StoredValue]

        var isText: Bool {
            switch layer.kind {
            case .arguments, .environment: true
            case .forced, .defaults: false
            }
        }

        /// The name `key` has in this layer (its variable, for the environment).
        func name(forKey key: String) -> String {
            if case .environment(let prefix, _) = layer.kind {
                return PreferenceLayer.environmentVariable(forKey: key, prefix: prefix)
            }
            return key
        }

        func source(name: String) -> ValueSource {
            switch layer.kind {
            case .forced(let source): .forced(location: source.location)
            case .arguments: .arguments
            case .environment: .environment(variable: name)
            case .defaults(let source): .defaults(location: source.location)
            }
        }
    }

    /// One layer's value of one key.
    struct Candidate: Sendable, Equatable {
        let source: ValueSource
        let value: StoredValue
        /// Text from arguments or the environment, converted by ``LayerText`` when read.
        let isText: Bool

        var isForced: Bool {
            if case .forced = source { return true }
            return false
        }
    }

    /// What the layers above and below the user's values hold for one key, highest first. A class,
    /// so a read takes it out of the table with one retain, and with the first value of each side
    /// at hand: a read decodes that one and looks no further unless it does not convert.
    final class Entry: Sendable, Equatable {
        let upper: [Candidate]
        let lower: [Candidate]
        /// `upper.first`'s value when it is not text, so the common read copies no candidate.
        let firstUpperValue: StoredValue?
        let hasUpper: Bool
        /// `lower.first`'s value when it is not text.
        let firstLowerValue: StoredValue?
        let hasLower: Bool

        init(upper: [Candidate] = [], lower: [Candidate] = []) {
            self.upper = upper
            self.lower = lower
            hasUpper = !upper.isEmpty
            hasLower = !lower.isEmpty
            firstUpperValue = upper.first.flatMap { $0.isText ? nil : $0.value }
            firstLowerValue = lower.first.flatMap { $0.isText ? nil : $0.value }
        }

        static let empty = Entry()

        static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.upper == rhs.upper && lhs.lower == rhs.lower }
    }

    private(set) var layers: [Layer]
    private var entries: [String: Entry] = [:]
    /// Each key's highest value (registered defaults apart) as last read, `.some(nil)` for none: a
    /// read's common case is this one lookup. The store keeps it when the user's value changes;
    /// a change of a layer drops the keys it touched.
    var tops: [String: StoredValue?] = [:]
    /// Which key first used each environment variable, to report two keys that share one.
    private var variableOwners: [String: String] = [:]
    /// Keys whose write under an overriding layer was reported already (once per key).
    var reportedOverrides: Set<String> = []
    /// Events found under the store's lock, reported once it is released.
    var pendingEvents: [StoreEvent] = []

    /// `contents[i]` holds the loaded values of `layers[i]`'s file or memory source.
    init(_ layers: [PreferenceLayer], contents: [[String: StoredValue]]) {
        var loaded: [Layer] = []
        for (layer, values) in zip(layers, contents) {
            switch layer.kind {
            case .forced, .defaults: loaded.append(Layer(layer: layer, values: values))
            case .arguments(let arguments): loaded.append(Layer(layer: layer, values: arguments.mapValues { .string($0) }))
            case .environment(_, let variables):
                loaded.append(Layer(layer: layer, values: variables.mapValues { .string($0) }))
            }
        }
        // Stable: defaults layers keep the order they were given in.
        self.layers = loaded.enumerated().sorted { ($0.element.layer.rank, $0.offset) < ($1.element.layer.rank, $1.offset) }
            .map(\.element)
    }

    /// What every layer holds for `key`, without remembering it (for a transaction's copy).
    func computeEntry(_ key: String) -> Entry {
        var upper: [Candidate] = []
        var lower: [Candidate] = []
        for layer in layers {
            let name = layer.name(forKey: key)
            guard let value = layer.values[name] else { continue }
            let candidate = Candidate(source: layer.source(name: name), value: value, isText: layer.isText)
            if layer.layer.rank < 3 { upper.append(candidate) } else { lower.append(candidate) }
        }
        return upper.isEmpty && lower.isEmpty ? .empty : Entry(upper: upper, lower: lower)
    }

    /// ``computeEntry(_:)``, remembered until a layer changes; notes environment variables two keys share.
    mutating func entry(for key: String) -> Entry {
        if let entry = entries[key] { return entry }
        for layer in layers {
            guard case .environment = layer.layer.kind else { continue }
            let variable = layer.name(forKey: key)
            if let owner = variableOwners[variable], owner != key {
                pendingEvents.append(.environmentCollision(variable: variable, keys: [owner, key]))
            } else {
                variableOwners[variable] = key
            }
        }
        let entry = computeEntry(key)
        entries[key] = entry
        return entry
    }

    /// Every key a non-text layer has, and the keys read so far that a text layer has.
    var keys: Set<String> {
        var keys = Set<String>()
        for layer in layers {
            switch layer.layer.kind {
            case .forced, .defaults, .arguments: keys.formUnion(layer.values.keys)
            case .environment: break
            }
        }
        for (key, entry) in entries
        where entry.upper.contains(where: { if case .environment = $0.source { true } else { false } }) {
            keys.insert(key)
        }
        return keys
    }

    /// Replaces the contents of layer `index` and returns the keys whose entries changed, each with
    /// its entry before and after.
    mutating func replaceContents(
        ofLayerAt index: Int, with values: [String: StoredValue]
    ) -> [(key: String, old: Entry, new: Entry)] {
        let old = layers[index].values
        var changedKeys = Set<String>()
        for (key, value) in values where old[key] != value { changedKeys.insert(key) }
        for key in old.keys where values[key] == nil { changedKeys.insert(key) }
        guard !changedKeys.isEmpty else { return [] }
        let before = changedKeys.map { ($0, entries[$0] ?? computeEntry($0)) }
        layers[index].values = values
        for key in changedKeys { tops[key] = nil }
        return before.map { key, oldEntry in
            let newEntry = computeEntry(key)
            entries[key] = newEntry
            return (key, oldEntry, newEntry)
        }
    }

    /// The index of the layer reading `source`'s file, for a file-change signal.
    func indices(readingFile path: String) -> [Int] {
        layers.indices.filter { layers[$0].layer.source?.filePath == path }
    }
}

/// One key as every layer holds it: enough to resolve it outside the store's lock.
struct LayeredValue: Sendable, Equatable {
    var entry: LayerTable.Entry
    var user: StoredValue?
    var registered: StoredValue?

    /// The highest layer's value (registered defaults apart, as in a ``Change``).
    var top: LayerTable.Candidate? {
        if let first = entry.upper.first { return first }
        if let user { return LayerTable.Candidate(source: .user, value: user, isText: false) }
        return entry.lower.first
    }

    /// How many values the layers, the user and the registered defaults hold for the key.
    var count: Int { entry.upper.count + (user == nil ? 0 : 1) + entry.lower.count + (registered == nil ? 0 : 1) }

    /// The `position`th value, highest first (non-generic, so the typed loop below stays small).
    func candidate(at position: Int) -> LayerTable.Candidate {
        var position = position
        if position < entry.upper.count { return entry.upper[position] }
        position -= entry.upper.count
        if let user {
            if position == 0 { return LayerTable.Candidate(source: .user, value: user, isText: false) }
            position -= 1
        }
        if position < entry.lower.count { return entry.lower[position] }
        return LayerTable.Candidate(source: .registered, value: registered ?? .bool(false), isText: false)
    }

    /// The first value, highest first, that converts to `Value`. Each one that does not convert is
    /// reported on `reporter` (a store, passed rather than captured: retaining a store costs) and the next one is read.
    func resolve<Value>(
        typeName: @autoclosure () -> String,
        reporter: PreferenceStore?,
        key: String,
        decode: (StoredValue) throws -> Value
    ) -> Value? {
        // The common case: the highest value is not text and decodes. Anything else takes the loop,
        // which tries that value again (and reports it) before going on.
        if let first = entry.hasUpper ? entry.firstUpperValue : (user ?? (entry.hasLower ? entry.firstLowerValue : nil)),
            let value = try? decode(first)
        {
            return value
        }
        for position in 0..<count {
            let candidate = candidate(at: position)
            if candidate.isText, case .string(let text) = candidate.value {
                do {
                    return try LayerText.convert(text, typeName: typeName(), decode: decode)
                } catch {
                    reporter?.report(.layerValueUnreadable(key: key, source: candidate.source, reason: error.reason))
                }
            } else {
                do {
                    return try decode(candidate.value)
                } catch {
                    reporter?.report(Self.failure(candidate, key: key, typeName: typeName()))
                }
            }
        }
        return nil
    }

    /// The value a typed read resolves from, text as its layer holds it, without reporting: two
    /// layered values with the same one read the same.
    func resolvedValue<Value>(decode: (StoredValue) throws -> Value) -> StoredValue? {
        for position in 0..<count {
            let candidate = candidate(at: position)
            if candidate.isText, case .string(let text) = candidate.value {
                if (try? LayerText.convert(text, typeName: "", decode: decode)) != nil { return candidate.value }
            } else if (try? decode(candidate.value)) != nil {
                return candidate.value
            }
        }
        return nil
    }

    /// The report for a value that did not decode: the user's and registered values as before layers.
    private static func failure(_ candidate: LayerTable.Candidate, key: String, typeName: String) -> StoreEvent {
        let found = "\(candidate.value.typeName) \(candidate.value)"
        switch candidate.source {
        case .user, .registered: return .decodingFailed(key: key, expected: typeName, found: found)
        default: return .layerValueUnreadable(key: key, source: candidate.source, reason: "it holds \(found), not \(typeName)")
        }
    }
}
