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
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.uint(let a), .uint(let b)): a == b
        case (.int(let a), .uint(let b)), (.uint(let b), .int(let a)): a >= 0 && UInt64(a) == b
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.date(let a), .date(let b)):
            a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case (.array(let a), .array(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        default: false
        }
    }
}

extension StoredValue: Hashable {
    /// Hashes consistently with ``==(_:_:)``.
    ///
    /// ```swift
    /// Set<StoredValue>([.int(1), .uint(1)]).count  //=> 1
    /// ```
    public func hash(into hasher: inout Hasher) {
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
        case .array(let value): hasher.combine(6); hasher.combine(value)
        case .dictionary(let value): hasher.combine(7); hasher.combine(value)
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
        switch self {
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .uint(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): quoted(value)
        case .data(let value): "<" + value.map { String(format: "%02x", $0) }.joined() + ">"
        case .date(let value): value.formatted(.iso8601)
        case .array(let values): "(" + values.map(\.description).joined(separator: ", ") + ")"
        case .dictionary(let values):
            "{" + values.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: "; ") + "}"
        }
    }

    private func quoted(_ string: String) -> String {
        "\"" + string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
