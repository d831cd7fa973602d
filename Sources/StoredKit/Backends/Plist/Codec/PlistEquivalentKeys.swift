/// Dictionary keys of a property list that equal an earlier key of the same dictionary only up to
/// Unicode normalisation (`"caf\u{E9}"` and `"cafe\u{301}"`): Swift's `String ==` makes them one
/// key, but another program wrote two. Reads see the first in file order; the root's others are
/// kept here so a rewrite of the store writes them back byte for byte.
struct PlistEquivalentKeys: Sendable, Equatable {
    /// An entry that a read does not show.
    struct Entry: Sendable, Equatable {
        /// The key as the file spells it.
        let key: String
        /// The key reads show instead.
        let shownAs: String
        let value: StoredValue
    }

    /// The root dictionary's hidden entries, in file order.
    var hiddenRootEntries: [Entry] = []
    /// Two spellings of a nested dictionary's key.
    struct Spellings: Sendable, Equatable {
        let shown: String
        let hidden: String
    }

    /// Nested dictionaries' collisions: reported, but a value can only hold one of them.
    var nested: [Spellings] = []

    /// Inserts a dictionary entry read from a file into `entries`. An exact duplicate key replaces
    /// the earlier entry, as Foundation does; a key equal only up to normalisation keeps the earlier
    /// one and is recorded. Costs nothing extra unless the key was there already.
    mutating func insert(
        _ value: StoredValue, forKey key: String, into entries: inout [String: StoredValue], atRoot: Bool
    ) {
        guard let earlier = entries.updateValue(value, forKey: key) else { return }
        let shown = entries.shownKey(for: key)
        guard !shown.utf8.elementsEqual(key.utf8) else { return }
        entries[key] = earlier
        if atRoot {
            hiddenRootEntries.append(Entry(key: key, shownAs: shown, value: value))
        } else {
            nested.append(Spellings(shown: shown, hidden: key))
        }
    }

    /// The events that tell the store's user, naming both spellings.
    func events(path: String) -> [StoreEvent] {
        hiddenRootEntries.map { .equivalentKeys(path: path, shown: $0.shownAs, hidden: $0.key) }
            + nested.map { .equivalentKeys(path: path, shown: $0.shown, hidden: $0.hidden) }
    }

    /// The root dictionary's entries in writing order: sorted by key, each hidden entry right
    /// after the entry it hides behind, so that reading the file again shows the same one.
    static func ordered(_ entries: [String: StoredValue], with hidden: [Entry]) -> [(key: String, value: StoredValue)] {
        let ranked =
            entries.map { (key: $0.key, value: $0.value, rank: 0) }
            + hidden.enumerated().map { (key: $0.element.key, value: $0.element.value, rank: $0.offset + 1) }
        // Keys equal up to normalisation compare equal with `<`, so the rank orders them.
        return ranked.sorted { $0.key < $1.key || (!($1.key < $0.key) && $0.rank < $1.rank) }.map { ($0.key, $0.value) }
    }
}
