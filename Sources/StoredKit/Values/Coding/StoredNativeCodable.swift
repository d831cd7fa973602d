import Foundation

/// A type the Codable coders convert directly to and from a ``StoredValue`` case, without
/// calling its `encode(to:)` / `init(from:)`: that is what keeps `Date` and `Data` native
/// instead of the numbers and base64 their own Codable conformances would produce, and it is the
/// fast path for scalars nested inside generic values.
protocol StoredNativeCodable {
    /// `nil` when no case can hold the value (an `Int128` beyond 64 bits).
    var nativeStoredValue: StoredValue? { get }
    /// `nil` when `value` has another shape or does not fit.
    static func fromNative(_ value: StoredValue) -> Self?
    /// Whether a rejected number should be shown with its value ("integer 300"): the kind was
    /// right but the value did not fit.
    static var isNumber: Bool { get }
}

extension StoredNativeCodable {
    static var isNumber: Bool { false }
}

extension StoredValue {
    /// What an error message says a rejected value is.
    func foundDescription(expectingNumber: Bool) -> String {
        switch self {
        case .int, .uint, .double: expectingNumber ? "\(typeName) \(description)" : typeName
        default: typeName
        }
    }

    /// The value as an integer of width `Integer`, or `nil` if it is not a whole number in range.
    /// Integral doubles are accepted because JSON and older plists may hold `3.0` for `3`, but only
    /// within 64 bits: a wider one (possible for `Int128`) could not be written back.
    @inline(__always)
    func exactInteger<Integer: FixedWidthInteger>(as type: Integer.Type) -> Integer? {
        switch self {
        case .int(let value): Integer(exactly: value)
        case .uint(let value): Integer(exactly: value)
        case .double(let value) where Int64(exactly: value) != nil || UInt64(exactly: value) != nil:
            Integer(exactly: value)
        default: nil
        }
    }

    /// The canonical case for any integer: `.int` when it fits, `.uint` above `Int64.max`.
    @inline(__always)
    static func exactInteger<Integer: FixedWidthInteger>(_ value: Integer) -> StoredValue? {
        if let signed = Int64(exactly: value) { return .int(signed) }
        if let unsigned = UInt64(exactly: value) { return .uint(unsigned) }
        return nil
    }

    /// The value as a `Double`; integers are accepted (rounded to the nearest `Double`).
    @inline(__always)
    var anyDouble: Double? {
        switch self {
        case .double(let value): value
        case .int(let value): Double(value)
        case .uint(let value): Double(value)
        default: nil
        }
    }

    /// The value as a `Float`; a finite `Double` beyond `Float`'s range is refused, not made infinite.
    @inline(__always)
    var anyFloat: Float? {
        guard let double = anyDouble else { return nil }
        let float = Float(double)
        return float.isInfinite && double.isFinite ? nil : float
    }
}

/// Every integer width shares the range-checked conversion.
protocol StoredNativeInteger: StoredNativeCodable, FixedWidthInteger {}

extension StoredNativeInteger {
    var nativeStoredValue: StoredValue? { StoredValue.exactInteger(self) }
    static func fromNative(_ value: StoredValue) -> Self? { value.exactInteger(as: Self.self) }
    static var isNumber: Bool { true }
}

extension Int: StoredNativeInteger {}
extension Int8: StoredNativeInteger {}
extension Int16: StoredNativeInteger {}
extension Int32: StoredNativeInteger {}
extension Int64: StoredNativeInteger {}
extension UInt: StoredNativeInteger {}
extension UInt8: StoredNativeInteger {}
extension UInt16: StoredNativeInteger {}
extension UInt32: StoredNativeInteger {}
extension UInt64: StoredNativeInteger {}
@available(macOS 15.0, *)
extension Int128: StoredNativeInteger {}
@available(macOS 15.0, *)
extension UInt128: StoredNativeInteger {}

extension Bool: StoredNativeCodable {
    var nativeStoredValue: StoredValue? { .bool(self) }
    static func fromNative(_ value: StoredValue) -> Bool? {
        if case .bool(let bool) = value { bool } else { nil }
    }
}

extension String: StoredNativeCodable {
    var nativeStoredValue: StoredValue? { .string(self) }
    static func fromNative(_ value: StoredValue) -> String? {
        if case .string(let string) = value { string } else { nil }
    }
}

extension Double: StoredNativeCodable {
    var nativeStoredValue: StoredValue? { .double(self) }
    static func fromNative(_ value: StoredValue) -> Double? { value.anyDouble }
    static var isNumber: Bool { true }
}

extension Float: StoredNativeCodable {
    var nativeStoredValue: StoredValue? { .double(Double(self)) }
    static func fromNative(_ value: StoredValue) -> Float? { value.anyFloat }
    static var isNumber: Bool { true }
}

extension Date: StoredNativeCodable {
    var nativeStoredValue: StoredValue? { .date(self) }
    static func fromNative(_ value: StoredValue) -> Date? {
        if case .date(let date) = value { date } else { nil }
    }
}

extension Data: StoredNativeCodable {
    var nativeStoredValue: StoredValue? { .data(self) }
    static func fromNative(_ value: StoredValue) -> Data? {
        if case .data(let data) = value { data } else { nil }
    }
}

extension URL: StoredNativeCodable {
    var nativeStoredValue: StoredValue? { .string(absoluteString) }
    static func fromNative(_ value: StoredValue) -> URL? {
        if case .string(let string) = value { URL(string: string) } else { nil }
    }
}
