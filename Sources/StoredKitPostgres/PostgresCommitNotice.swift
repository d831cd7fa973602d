import StoredKit

/// A commit's changes as its `NOTIFY` carries them, so a listener that is current applies them
/// without reading them back from the server.
///
/// Each commit of a store sends, in this order, on channel ``PostgresSchema/channel``:
/// - when its changes fit: `v2 <revision> <previous revision> <namespace bytes> <namespace><changes>`,
///   `<changes>` being ``StoredValueJSON`` of `{"removed": [keys], "set": {key: value}}`
///   (either may be absent);
/// - always: `<revision> <namespace>`, the payload every version understands, which means
///   "read what changed after your revision". A process of an older version skips the first (its
///   revision is not a number) and reads on the second.
///
/// A listener applies a `v2` payload only when the revision it has is the payload's previous
/// revision: a gap (a notification lost, a hand edit, which sends only the second form), a
/// payload it cannot read, or a commit without one falls back to the catch-up read. The payload
/// is built in the statement that bumps the revision, from the very changes the transaction
/// writes, and the server sends it only if that transaction commits.
///
/// ```swift
/// let tail = PostgresCommitNotice.tail(for: BackendChanges(values: ["a": .int(1), "b": nil]), namespace: "user:42")
/// //=> "7 user:42{\"removed\":[\"b\"],\"set\":{\"a\":1}}"
/// PostgresCommitNotice.parse("v2 8 7 " + tail!)?.notice.changes()?.values  //=> ["a": .int(1), "b": nil]
/// ```
struct PostgresCommitNotice: Sendable, Equatable {
    /// The revision the commit made.
    let revision: Int64
    /// The revision the commit followed: the payload applies only on top of exactly that.
    let previous: Int64
    /// The ``StoredValueJSON`` text of the changes, read only when applied.
    let changesText: String

    /// The prefix of a payload that carries changes.
    static let prefix = "v2 "

    /// The most a whole payload may take, in UTF-8 bytes: PostgreSQL refuses 8,000 and more.
    /// Kept well under that, so the revisions and the prefix (at most 43 bytes) always fit.
    static let payloadBudget = 7_000
    /// The most the client's part (namespace and changes) may take.
    static let tailBudget = payloadBudget - 64

    /// The part of the `v2` payload the client builds: `<namespace bytes> <namespace><changes>`,
    /// or nil when the commit does not travel in its notification (too large, or a schema
    /// version change, which the catch-up read carries).
    static func tail(for changes: BackendChanges, namespace: String) -> String? {
        guard changes.schemaVersion == nil, !changes.values.isEmpty else { return nil }
        // A bound first, which stops as soon as it passes the budget: a large batch (an import,
        // a big value) is not encoded only to be thrown away.
        var estimate = namespace.utf8.count
        for (key, value) in changes.values {
            estimate += key.utf8.count + 4
            if let value { estimate += minimumSize(of: value, within: tailBudget - estimate) }
            guard estimate <= tailBudget else { return nil }
        }
        var set: [String: StoredValue] = [:]
        var removed: [StoredValue] = []
        for (key, value) in changes.values {
            if let value { set[key] = value } else { removed.append(.string(key)) }
        }
        var wrapper: [String: StoredValue] = [:]
        if !set.isEmpty { wrapper["set"] = .dictionary(set) }
        if !removed.isEmpty {
            removed.sort { if case (.string(let a), .string(let b)) = ($0, $1) { a < b } else { false } }
            wrapper["removed"] = .array(removed)
        }
        let tail = "\(namespace.utf8.count) \(namespace)" + StoredValueJSON.encode(.dictionary(wrapper))
        return tail.utf8.count <= tailBudget ? tail : nil
    }

    /// At most `limit` and at most the length of `value`'s JSON text: its strings, data and
    /// elements counted until `limit` is passed.
    private static func minimumSize(of value: StoredValue, within limit: Int) -> Int {
        switch value {
        case .string(let text): return text.utf8.count + 2
        case .data(let data): return data.count * 4 / 3
        case .array(let elements):
            var size = 2
            for element in elements where size <= limit { size += 1 + minimumSize(of: element, within: limit - size) }
            return size
        case .dictionary(let members):
            var size = 2
            for (key, member) in members where size <= limit {
                size += key.utf8.count + 4 + minimumSize(of: member, within: limit - size)
            }
            return size
        case .bool, .int, .uint, .double, .date: return 1
        }
    }

    /// Reads a `v2` payload's header: the namespace and the notice, or nil when `payload` is not
    /// one (the `<revision> <namespace>` form, or anything unknown or malformed).
    static func parse(_ payload: String) -> (namespace: String, notice: PostgresCommitNotice)? {
        guard payload.hasPrefix(prefix) else { return nil }
        let utf8 = payload.utf8
        var index = utf8.index(utf8.startIndex, offsetBy: prefix.utf8.count)
        func number() -> Int64? {
            guard let space = utf8[index...].firstIndex(of: UInt8(ascii: " ")),
                let text = String(utf8[index..<space]), let value = Int64(text)
            else { return nil }
            index = utf8.index(after: space)
            return value
        }
        guard let revision = number(), let previous = number(), let length = number(), length >= 0,
            utf8.distance(from: index, to: utf8.endIndex) >= length
        else { return nil }
        let end = utf8.index(index, offsetBy: Int(length))
        guard let namespace = String(utf8[index..<end]), let changes = String(utf8[end...]) else { return nil }
        return (namespace, PostgresCommitNotice(revision: revision, previous: previous, changesText: changes))
    }

    /// The changes the payload carries, or nil when its text does not read as written by
    /// ``tail(for:namespace:)`` (then the listener reads instead).
    func changes() -> BackendChanges? {
        // The root and "set" wrap the values, which may each nest as deep as a stored value.
        var parser = StoredValueJSON.Parser(
            bytes: Array(changesText.utf8), source: "notification", limit: StoredValue.maximumDepth + 2)
        guard let root = try? parser.parseValue(depth: 0), case .dictionary(let wrapper) = root else { return nil }
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count, Set(wrapper.keys).isSubset(of: ["set", "removed"]) else { return nil }
        var values: [String: StoredValue?] = [:]
        if let set = wrapper["set"] {
            guard case .dictionary(let members) = set else { return nil }
            for (key, value) in members { values[key] = .some(value) }
        }
        if let removed = wrapper["removed"] {
            guard case .array(let keys) = removed else { return nil }
            for key in keys {
                guard case .string(let name) = key, values[name] == nil else { return nil }
                values[name] = .some(nil)
            }
        }
        guard !values.isEmpty else { return nil }
        return BackendChanges(values: values)
    }
}
