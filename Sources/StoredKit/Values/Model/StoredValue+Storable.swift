import Foundation

/// `StoredValue` is itself storable, as the identity: a raw tree goes in and comes out as it is.
/// That is what tools and generic code need when the shape of a value is not known in advance.
///
/// ```swift
/// store.set(StoredValue.dictionary(["on": .bool(true)]), forKey: "raw")
/// store.value(forKey: "raw", as: StoredValue.self)  //=> {on = true}
/// let any = StoredKey<StoredValue>("any", default: .string("x"))
/// ```
extension StoredValue: Storable {
    /// The value itself.
    ///
    /// ```swift
    /// try StoredValue(storedValue: .int(3))  //=> .int(3)
    /// ```
    public init(storedValue: StoredValue) throws {
        self = storedValue
    }

    /// The value itself.
    ///
    /// ```swift
    /// StoredValue.int(3).storedValue  //=> .int(3)
    /// ```
    public var storedValue: StoredValue { self }
}

extension StoredValue: Codable {
    /// Encodes the tree. Inside StoredKit's own encoder (a `StoredValue` property of a Codable
    /// type) it is placed as it is; other encoders get its natural shape — `JSONEncoder` writes
    /// data as base64 and dates as numbers, as it does for `Data` and `Date`.
    ///
    /// ```swift
    /// try JSONEncoder().encode(StoredValue.array([.int(1), .string("a")]))  //=> [1,"a"]
    /// ```
    public func encode(to encoder: any Encoder) throws {
        if let session = encoder as? EncodingSession {
            session.place(self)
            return
        }
        switch self {
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .dictionary(let entries):
            var container = encoder.container(keyedBy: StoredStringKey.self)
            for (key, value) in entries { try container.encode(value, forKey: StoredStringKey(key)) }
        default:
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .uint(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .data(let value): try container.encode(value)
            case .date(let value): try container.encode(value)
            case .array, .dictionary: break  // handled above
            }
        }
    }

    /// Decodes a tree. Inside StoredKit's own decoder the stored value is taken as it is; from
    /// other decoders the first kind that fits is taken, in the order bool, integer, real, string
    /// (a JSON number or string cannot tell a date or data from a number or text).
    ///
    /// ```swift
    /// try JSONDecoder().decode(StoredValue.self, from: Data("[1, \"a\"]".utf8))  //=> (1, "a")
    /// ```
    public init(from decoder: any Decoder) throws {
        if let native = decoder as? DecodingSession {
            guard let value = native.value else {
                throw DecodingError.valueNotFound(
                    StoredValue.self, .init(codingPath: native.codingPath, debugDescription: "No value is stored here."))
            }
            self = value
        } else if var container = try? decoder.unkeyedContainer() {
            var elements: [StoredValue] = []
            while !container.isAtEnd { elements.append(try container.decode(StoredValue.self)) }
            self = .array(elements)
        } else if let container = try? decoder.container(keyedBy: StoredStringKey.self) {
            var entries: [String: StoredValue] = [:]
            for key in container.allKeys { entries[key.stringValue] = try container.decode(StoredValue.self, forKey: key) }
            self = .dictionary(entries)
        } else {
            self = try Self.scalar(from: decoder.singleValueContainer())
        }
    }

    private static func scalar(from container: any SingleValueDecodingContainer) throws -> StoredValue {
        if let value = try? container.decode(Bool.self) { return .bool(value) }
        if let value = try? container.decode(Int64.self) { return .int(value) }
        if let value = try? container.decode(UInt64.self) { return StoredValue(value) }
        if let value = try? container.decode(Double.self) { return .double(value) }
        if let value = try? container.decode(String.self) { return .string(value) }
        throw DecodingError.dataCorruptedError(
            in: container, debugDescription: "Not a value StoredValue can hold (null, or an unknown kind).")
    }
}
