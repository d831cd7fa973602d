import Synchronization

/// A dictionary laid out once for one sequence of keys, so that a keyed container writing exactly
/// those keys again becomes a copy of it with the values put in place.
///
/// Building a struct's dictionary key by key hashes every key, and that hashing was a quarter of
/// encoding time: the 20 tabs of a sidebar write the same few keys twenty times, and a settings
/// struct writes the same nineteen on every `set`. `mapValues` of a dictionary copies its hash
/// table as it is (no key is hashed again) and asks for the values in the table's own order, so
/// the shape records, for each bucket in that order, which write fills it.
///
/// ```swift
/// var entries = EncodingEntryBuffer()
/// entries.append(Entry(key: "id", value: .int(1)))
/// entries.append(Entry(key: "name", value: .string("a")))
/// let shape = DictionaryShape(keys: ["id", "name"])
/// if let shape, shape.matches(entries, in: 0..<2) { shape.take(from: &entries, in: 0..<2) }
/// //=> ["id": .int(1), "name": .string("a")], and both entries' values are nil
/// ```
final class DictionaryShape: Sendable {
    /// The keys in the order a container writes them.
    let keys: [String]
    /// A dictionary with exactly these keys; each value is a placeholder (its key's position).
    private let template: [String: StoredValue]
    /// For each value of `template`, in the order `mapValues` visits them, the position of its key
    /// in `keys` (the write that fills it).
    private let writeOffsets: [Int]

    /// Only a struct-sized container is worth a shape: one writing keys from data (a dictionary
    /// encoded key by key through a custom key type) would keep a large template alive for nothing.
    static let maximumKeys = 64

    /// How many shapes one key type keeps: a struct with two optional properties has four.
    static let maximumPerKeyType = 4

    /// The shape of `keys`, or `nil` when they repeat a key or are too many to be worth one.
    init?(keys: [String]) {
        guard !keys.isEmpty, keys.count <= Self.maximumKeys else { return nil }
        // Each placeholder is its key's position in `keys`, so that one `mapValues` pass tells the
        // order it visits the values in. That order is the standard library's, not a documented
        // one; all this relies on is that `mapValues` of one table visits it the same way each time.
        var template = [String: StoredValue](minimumCapacity: keys.count)
        for (offset, key) in keys.enumerated() {
            template[key] = .int(Int64(offset))
        }
        guard template.count == keys.count else { return nil }
        var writeOffsets: [Int] = []
        writeOffsets.reserveCapacity(keys.count)
        _ = template.mapValues { placeholder in
            if case .int(let offset) = placeholder { writeOffsets.append(Int(offset)) }
            return placeholder
        }
        guard writeOffsets.count == keys.count else { return nil }
        self.keys = keys
        self.template = template
        self.writeOffsets = writeOffsets
    }

    /// Whether `entries[range]` are exactly this shape's keys in its order, each with a value (a
    /// `nil` value is a removal, which only the key-by-key path handles).
    @inline(__always)
    func matches(_ entries: borrowing EncodingEntryBuffer, in range: Range<Int>) -> Bool {
        guard range.count == keys.count else { return false }
        var offset = 0
        for index in range {
            if case .none = entries[index].value { return false }
            guard entries[index].key == keys[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// The dictionary of `entries[range]`, which ``matches(_:in:)`` accepted. The values are moved
    /// out (each entry is left with `nil`), not copied: the caller's frame removes the entries
    /// when it closes, and one move per value costs less than a copy and a destruction. (Copying
    /// the template and then setting each value through its index cost twice as much: every set
    /// checks the index and the table's uniqueness, and destroys a placeholder.)
    @inline(__always)
    func take(from entries: inout EncodingEntryBuffer, in range: Range<Int>) -> [String: StoredValue] {
        var bucket = 0
        return template.mapValues { _ in
            let index = range.lowerBound + writeOffsets[bucket]
            bucket += 1
            // `matches(_:in:)` saw a value in every entry.
            return entries[index].value.take().unsafelyUnwrapped
        }
    }
}

extension DictionaryShape {
    /// The shapes learnt so far in this process, by coding key type, so that a value encoded once
    /// (a settings struct, written on every `set`) finds its shape on the next encoding.
    private static let known = Mutex<[ObjectIdentifier: [DictionaryShape]]>([:])

    /// The shapes known for containers keyed by `keyType`.
    static func known(for keyType: ObjectIdentifier) -> [DictionaryShape] {
        known.withLock { $0[keyType] ?? [] }
    }

    /// A shape one encoding learnt for containers keyed by `keyType`.
    struct Learnt {
        let keyType: ObjectIdentifier
        let shape: DictionaryShape
    }

    /// Records the shapes an encoding learnt, up to ``maximumPerKeyType`` for each key type.
    static func learn(_ learnt: [Learnt]) {
        guard !learnt.isEmpty else { return }
        known.withLock { known in
            for item in learnt {
                var shapes = known[item.keyType] ?? []
                guard shapes.count < maximumPerKeyType, !shapes.contains(where: { $0.keys == item.shape.keys }) else {
                    continue
                }
                shapes.append(item.shape)
                known[item.keyType] = shapes
            }
        }
    }
}
