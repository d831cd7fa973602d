import Foundation

/// A type with a native ``StoredValue`` representation.
///
/// The built-in conformances (Bool, every integer width, Float, Double, String, Data, Date,
/// URL, UUID, and Array / Set / `[String: V]` of storable values) skip the Codable machinery
/// and convert directly. Any other `Codable` type works with ``Stored`` and ``StoredKey``
/// without conforming to anything: it is encoded with ``StoredValueEncoder``.
///
/// ```swift
/// struct Celsius: Storable {
///     var degrees: Double
///     init(degrees: Double) { self.degrees = degrees }
///     init(storedValue: StoredValue) throws { degrees = try Double(storedValue: storedValue) }
///     var storedValue: StoredValue { .double(degrees) }
/// }
/// ```
public protocol Storable: Codable, Sendable {
    /// Reads a value, throwing ``StoreError/typeMismatch(key:expected:found:)`` when it has another shape.
    init(storedValue: StoredValue) throws
    /// This value as a ``StoredValue``.
    var storedValue: StoredValue { get }
}

extension Storable {
    static func mismatch(_ found: StoredValue) -> StoreError {
        .typeMismatch(key: "", expected: String(describing: Self.self), found: found.typeName)
    }
}

extension Bool: Storable {
    /// Reads `.bool`.
    ///
    /// ```swift
    /// try Bool(storedValue: .bool(true))  //=> true
    /// ```
    public init(storedValue: StoredValue) throws {
        guard case .bool(let value) = storedValue else { throw Self.mismatch(storedValue) }
        self = value
    }
    /// `.bool(self)`.
    ///
    /// ```swift
    /// true.storedValue  //=> .bool(true)
    /// ```
    public var storedValue: StoredValue { .bool(self) }
}

/// The integer widths share one conversion that refuses values out of range instead of trapping.
extension FixedWidthInteger where Self: Storable {
    /// Reads `.int` / `.uint` that fit this width.
    ///
    /// ```swift
    /// try UInt8(storedValue: .int(300))  // throws typeMismatch
    /// ```
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .int(let value):
            guard let exact = Self(exactly: value) else { throw Self.mismatch(storedValue) }
            self = exact
        case .uint(let value):
            guard let exact = Self(exactly: value) else { throw Self.mismatch(storedValue) }
            self = exact
        default:
            throw Self.mismatch(storedValue)
        }
    }

    /// `.int`, or `.uint` above `Int64.max`.
    ///
    /// ```swift
    /// UInt64.max.storedValue  //=> .uint(18446744073709551615)
    /// ```
    public var storedValue: StoredValue {
        if let signed = Int64(exactly: self) { return .int(signed) }
        return .uint(UInt64(truncatingIfNeeded: self))
    }
}

extension Int: Storable {}
extension Int8: Storable {}
extension Int16: Storable {}
extension Int32: Storable {}
extension Int64: Storable {}
extension UInt: Storable {}
extension UInt8: Storable {}
extension UInt16: Storable {}
extension UInt32: Storable {}
extension UInt64: Storable {}

extension Double: Storable {
    /// Reads `.double`, or an integer.
    ///
    /// ```swift
    /// try Double(storedValue: .int(2))  //=> 2.0
    /// ```
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .double(let value): self = value
        case .int(let value): self = Double(value)
        case .uint(let value): self = Double(value)
        default: throw Self.mismatch(storedValue)
        }
    }
    /// `.double(self)`.
    ///
    /// ```swift
    /// 0.5.storedValue  //=> .double(0.5)
    /// ```
    public var storedValue: StoredValue { .double(self) }
}

extension Float: Storable {
    /// Reads a number; stored as a Double, which holds every Float exactly.
    ///
    /// ```swift
    /// try Float(storedValue: .double(0.25))  //=> 0.25
    /// ```
    public init(storedValue: StoredValue) throws {
        self = Float(try Double(storedValue: storedValue))
    }
    /// `.double(Double(self))`.
    ///
    /// ```swift
    /// Float(1.5).storedValue  //=> .double(1.5)
    /// ```
    public var storedValue: StoredValue { .double(Double(self)) }
}

extension String: Storable {
    /// Reads `.string`.
    ///
    /// ```swift
    /// try String(storedValue: .string("dark"))  //=> "dark"
    /// ```
    public init(storedValue: StoredValue) throws {
        guard case .string(let value) = storedValue else { throw Self.mismatch(storedValue) }
        self = value
    }
    /// `.string(self)`.
    ///
    /// ```swift
    /// "dark".storedValue  //=> .string("dark")
    /// ```
    public var storedValue: StoredValue { .string(self) }
}

extension Data: Storable {
    /// Reads `.data`.
    ///
    /// ```swift
    /// try Data(storedValue: .data(Data([1, 2])))  //=> 2 bytes
    /// ```
    public init(storedValue: StoredValue) throws {
        guard case .data(let value) = storedValue else { throw Self.mismatch(storedValue) }
        self = value
    }
    /// `.data(self)`.
    ///
    /// ```swift
    /// Data([1]).storedValue  //=> .data(1 bytes)
    /// ```
    public var storedValue: StoredValue { .data(self) }
}

extension Date: Storable {
    /// Reads `.date`.
    ///
    /// ```swift
    /// try Date(storedValue: .date(.distantPast))  //=> 0001-01-01 00:00:00 +0000
    /// ```
    public init(storedValue: StoredValue) throws {
        guard case .date(let value) = storedValue else { throw Self.mismatch(storedValue) }
        self = value
    }
    /// `.date(self)`.
    ///
    /// ```swift
    /// Date.now.storedValue  //=> .date(...)
    /// ```
    public var storedValue: StoredValue { .date(self) }
}

extension URL: Storable {
    /// Reads the URL's absolute string.
    ///
    /// ```swift
    /// try URL(storedValue: .string("https://swift.org"))  //=> https://swift.org
    /// ```
    public init(storedValue: StoredValue) throws {
        guard case .string(let string) = storedValue, let url = URL(string: string) else {
            throw Self.mismatch(storedValue)
        }
        self = url
    }
    /// `.string(absoluteString)`.
    ///
    /// ```swift
    /// URL(fileURLWithPath: "/tmp").storedValue  //=> .string("file:///tmp/")
    /// ```
    public var storedValue: StoredValue { .string(absoluteString) }
}

extension UUID: Storable {
    /// Reads the UUID's string form.
    ///
    /// ```swift
    /// try UUID(storedValue: .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    /// ```
    public init(storedValue: StoredValue) throws {
        guard case .string(let string) = storedValue, let uuid = UUID(uuidString: string) else {
            throw Self.mismatch(storedValue)
        }
        self = uuid
    }
    /// `.string(uuidString)`.
    ///
    /// ```swift
    /// UUID().storedValue  //=> .string("…")
    /// ```
    public var storedValue: StoredValue { .string(uuidString) }
}

extension Array: Storable where Element: Storable {
    /// Reads `.array` whose every element reads as `Element`.
    ///
    /// ```swift
    /// try [Int](storedValue: .array([.int(1), .int(2)]))  //=> [1, 2]
    /// ```
    public init(storedValue: StoredValue) throws {
        guard case .array(let values) = storedValue else { throw Self.mismatch(storedValue) }
        self = try values.map(Element.init(storedValue:))
    }
    /// `.array` of the elements.
    ///
    /// ```swift
    /// [1, 2].storedValue  //=> .array([.int(1), .int(2)])
    /// ```
    public var storedValue: StoredValue { .array(map(\.storedValue)) }
}

extension Set: Storable where Element: Storable {
    /// Reads `.array` as a set.
    ///
    /// ```swift
    /// try Set<String>(storedValue: .array([.string("a")]))  //=> ["a"]
    /// ```
    public init(storedValue: StoredValue) throws {
        self = Set(try [Element](storedValue: storedValue))
    }
    /// `.array` of the elements in a canonical order (sorted by their text), so equal sets store
    /// equal arrays: a set's own order depends on its history and on the process's hash seed, and
    /// an equal set written from another process must not count as a change.
    ///
    /// ```swift
    /// Set(["b", "a"]).storedValue  //=> .array([.string("a"), .string("b")])
    /// ```
    public var storedValue: StoredValue {
        .array(StoredValue.canonicallySorted(map(\.storedValue)))
    }
}

extension Dictionary: Storable where Key == String, Value: Storable {
    /// Reads `.dictionary` whose every value reads as `Value`.
    ///
    /// ```swift
    /// try [String: Int](storedValue: .dictionary(["a": .int(1)]))  //=> ["a": 1]
    /// ```
    public init(storedValue: StoredValue) throws {
        guard case .dictionary(let values) = storedValue else { throw Self.mismatch(storedValue) }
        self = try values.mapValues(Value.init(storedValue:))
    }
    /// `.dictionary` of the values.
    ///
    /// ```swift
    /// ["a": 1].storedValue  //=> .dictionary(["a": .int(1)])
    /// ```
    public var storedValue: StoredValue { .dictionary(mapValues(\.storedValue)) }
}
