/// The elements of the plist DTD, recognised straight from the bytes of a tag name.
enum PlistXMLElement {
    case plist, dictionary, array, key, string, integer, real, date, data, `true`, `false`

    /// The tag name as written in the file.
    var name: StaticString {
        switch self {
        case .plist: "plist"
        case .dictionary: "dict"
        case .array: "array"
        case .key: "key"
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .date: "date"
        case .data: "data"
        case .true: "true"
        case .false: "false"
        }
    }

    /// Identifies the element whose name is `bytes[range]`; `nil` for names outside the plist DTD.
    init?(named range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) {
        guard let first = range.first.map({ bytes[$0] }) else { return nil }
        // One candidate per first letter (three for 'd'), then a single comparison: this runs for every tag.
        let candidate: PlistXMLElement
        switch first {
        case UInt8(ascii: "d"):
            guard range.count == 4, bytes[range.lowerBound + 2] == UInt8(ascii: "t") else {
                candidate = .dictionary
                break
            }
            candidate = bytes[range.lowerBound + 3] == UInt8(ascii: "e") ? .date : .data
        case UInt8(ascii: "k"): candidate = .key
        case UInt8(ascii: "s"): candidate = .string
        case UInt8(ascii: "i"): candidate = .integer
        case UInt8(ascii: "r"): candidate = .real
        case UInt8(ascii: "a"): candidate = .array
        case UInt8(ascii: "t"): candidate = .true
        case UInt8(ascii: "f"): candidate = .false
        case UInt8(ascii: "p"): candidate = .plist
        default: return nil
        }
        guard Self.bytes(bytes, in: range, equal: candidate.name) else { return nil }
        self = candidate
    }

    /// Whether `bytes[range]` spells `literal` exactly.
    static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>, equal literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let literalBytes = literal.utf8Start
        for index in 0..<range.count where bytes[range.lowerBound + index] != literalBytes[index] { return false }
        return true
    }
}
