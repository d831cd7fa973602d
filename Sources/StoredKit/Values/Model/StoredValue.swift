import Foundation

/// The one value model every layer of StoredKit speaks: a property-list-shaped tree.
///
/// Every stored preference is a `StoredValue`. Codable types encode straight into it
/// (see ``StoredValueEncoder``), the plist backend writes it as a property list and
/// the SQLite backend as native columns or JSON text.
///
/// ```swift
/// let value: StoredValue = .dictionary(["volume": .double(0.5), "tabs": .array([.string("home")])])
/// print(value)  //=> {tabs = ("home"); volume = 0.5}
/// ```
///
/// Integers above `Int64.max` are held by ``uint(_:)``; ``init(_:)-(UInt64)`` picks the
/// right case, and `.uint(3) == .int(3)`. Doubles compare by bit pattern, so `NaN == NaN`
/// and a value written twice is recognised as unchanged.
public enum StoredValue: Sendable {
    /// A Boolean (`<true/>` in a plist).
    case bool(Bool)
    /// A signed integer.
    case int(Int64)
    /// An unsigned integer above `Int64.max`; smaller ones are ``int(_:)``.
    case uint(UInt64)
    /// A floating-point number, stored losslessly (NaN and ±infinity included).
    case double(Double)
    /// A Unicode string.
    case string(String)
    /// Raw bytes.
    case data(Data)
    /// A point in time.
    case date(Date)
    /// An ordered list.
    case array([StoredValue])
    /// A dictionary with string keys.
    case dictionary([String: StoredValue])

    /// An integer value in its canonical case: ``int(_:)`` when it fits, ``uint(_:)`` otherwise.
    ///
    /// ```swift
    /// StoredValue(UInt64.max)  //=> .uint(18446744073709551615)
    /// StoredValue(UInt64(7))   //=> .int(7)
    /// ```
    public init(_ unsigned: UInt64) {
        self = unsigned <= UInt64(Int64.max) ? .int(Int64(unsigned)) : .uint(unsigned)
    }

    /// The name of this value's kind, as used in messages and by `stored read-type`.
    ///
    /// ```swift
    /// StoredValue.int(3).typeName  //=> "integer"
    /// ```
    public var typeName: String {
        switch self {
        case .bool: "boolean"
        case .int, .uint: "integer"
        case .double: "real"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }
}

extension StoredValue: Equatable {
    /// Structural equality; integers compare by value across ``int(_:)`` and ``uint(_:)``,
    /// doubles by bit pattern.
    ///
    /// ```swift
    /// StoredValue.double(.nan) == .double(.nan)  //=> true
    /// ```
    public static func == (lhs: StoredValue, rhs: StoredValue) -> Bool {
        isEqual(lhs, rhs, depth: 0)
    }

    /// `==` for values `depth` levels down. Beyond `recursionLimit` levels it goes on with a
    /// work list instead of recursing, so no value, however deep, reaches the end of the stack.
    private static func isEqual(_ lhs: StoredValue, _ rhs: StoredValue, depth: Int) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.uint(let a), .uint(let b)): return a == b
        case (.int(let a), .uint(let b)), (.uint(let b), .int(let a)): return a >= 0 && UInt64(a) == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.date(let a), .date(let b)):
            return a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            // The same storage (a value set again as it was read) is equal without a walk.
            if a.withUnsafeBufferPointer({ $0.baseAddress }) == b.withUnsafeBufferPointer({ $0.baseAddress }) { return true }
            if depth >= recursionLimit { return isEqualWithoutRecursion(lhs, rhs) }
            return zip(a, b).allSatisfy { isEqual($0, $1, depth: depth + 1) }
        case (.dictionary(let a), .dictionary(let b)):
            guard a.count == b.count else { return false }
            if depth >= recursionLimit { return isEqualWithoutRecursion(lhs, rhs) }
            // Scalars first: a changed value (every `set` is compared with what is stored) mostly
            // differs in one, found without first walking a container that happens to come earlier.
            for (key, value) in a where !value.isContainer {
                guard let other = b[key], isEqual(value, other, depth: depth + 1) else { return false }
            }
            return a.allSatisfy { key, value in
                !value.isContainer || (b[key].map { isEqual(value, $0, depth: depth + 1) } ?? false)
            }
        default: return false
        }
    }

    private static func isEqualWithoutRecursion(_ lhs: StoredValue, _ rhs: StoredValue) -> Bool {
        var pending = [(lhs, rhs)]
        while let (left, right) = pending.popLast() {
            switch (left, right) {
            case (.array(let a), .array(let b)):
                guard a.count == b.count else { return false }
                pending.append(contentsOf: zip(a, b))
            case (.dictionary(let a), .dictionary(let b)):
                guard a.count == b.count else { return false }
                for (key, value) in a {
                    guard let other = b[key] else { return false }
                    pending.append((value, other))
                }
            default:
                // Scalars, or a container against something else: no recursion either way.
                guard isEqual(left, right, depth: 0) else { return false }
            }
        }
        return true
    }
}

extension StoredValue: Hashable {
    /// Hashes consistently with ``==(_:_:)``.
    ///
    /// ```swift
    /// Set<StoredValue>([.int(1), .uint(1)]).count  //=> 1
    /// ```
    public func hash(into hasher: inout Hasher) {
        hash(into: &hasher, depth: 0)
    }

    /// Containers deeper than `recursionLimit` hash by their size alone, so hashing never
    /// recurses further (whatever the depth and the stack); equal values still hash equally.
    private func hash(into hasher: inout Hasher, depth: Int) {
        switch self {
        case .bool(let value): hasher.combine(0); hasher.combine(value)
        case .int(let value): hasher.combine(1); hasher.combine(value)
        case .uint(let value):
            hasher.combine(1)
            if value <= UInt64(Int64.max) { hasher.combine(Int64(value)) } else { hasher.combine(value) }
        case .double(let value): hasher.combine(2); hasher.combine(value.bitPattern)
        case .string(let value): hasher.combine(3); hasher.combine(value)
        case .data(let value): hasher.combine(4); hasher.combine(value)
        case .date(let value): hasher.combine(5); hasher.combine(value.timeIntervalSinceReferenceDate.bitPattern)
        case .array(let values):
            hasher.combine(6)
            hasher.combine(values.count)
            guard depth < Self.recursionLimit else { return }
            for value in values { value.hash(into: &hasher, depth: depth + 1) }
        case .dictionary(let values):
            hasher.combine(7)
            hasher.combine(values.count)
            guard depth < Self.recursionLimit else { return }
            // Order-independent, as the dictionary's own hash: each entry hashed alone, then combined.
            var combined = 0
            for (key, value) in values {
                var entry = Hasher()
                entry.combine(key)
                value.hash(into: &entry, depth: depth + 1)
                combined ^= entry.finalize()
            }
            hasher.combine(combined)
        }
    }
}

extension StoredValue: CustomStringConvertible {
    /// A compact, human-readable rendering in the style of old-style plists.
    ///
    /// ```swift
    /// StoredValue.array([.int(1), .string("a")]).description  //=> (1, "a")
    /// ```
    public var description: String {
        rendered(exact: false)
    }

    /// ``description``, or with `exact` one-to-one (dates to the bit, dictionary keys quoted), made
    /// with a stack of its own, so any depth renders on any thread. Containers deeper than
    /// ``maximumDepth`` (built by hand: none deeper gets into a store) show as `(…)` and `{…}`.
    func rendered(exact: Bool) -> String {
        var output = ""
        var open: [(parts: [(key: String?, value: StoredValue)], next: Int, isArray: Bool)] = []
        var next: StoredValue? = self
        while true {
            if let value = next {
                next = nil
                switch value {
                case .array where open.count >= Self.maximumDepth: output += "(…)"
                case .dictionary where open.count >= Self.maximumDepth: output += "{…}"
                case .array(let values):
                    output += "("
                    open.append((values.map { (nil, $0) }, 0, true))
                case .dictionary(let values):
                    output += "{"
                    open.append((values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, 0, false))
                case .date(let date) where exact: output += "@" + String(date.timeIntervalSinceReferenceDate)
                default: output += value.scalarDescription
                }
            }
            guard let top = open.indices.last else { return output }
            let index = open[top].next
            guard index < open[top].parts.count else {
                output += open[top].isArray ? ")" : "}"
                open.removeLast()
                continue
            }
            if index > 0 { output += open[top].isArray ? ", " : "; " }
            if let key = open[top].parts[index].key { output += (exact ? quoted(key) : key) + " = " }
            next = open[top].parts[index].value
            open[top].next += 1
        }
    }

    /// The text of a scalar in ``description``; containers are rendered by ``rendered(exact:)``.
    private var scalarDescription: String {
        switch self {
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .uint(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): quoted(value)
        case .data(let value): "<" + value.map { String(format: "%02x", $0) }.joined() + ">"
        case .date(let value): value.formatted(.iso8601)
        case .array, .dictionary: ""
        }
    }

    private func quoted(_ string: String) -> String {
        "\"" + string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
