import Foundation

@testable import StoredKit

/// Fixtures and Foundation bridges shared by the plist codec tests.
enum PlistTestSupport {
    /// Every kind of value, with the edge cases each format has to get right.
    static let sample: StoredValue = .dictionary([
        "string": .string("héllo <&> \"quoted\" 'apos' ]]> end"),
        "unicode": .string("😀 👩‍👩‍👧 e\u{301} 𝄞 日本語"),
        "controls": .string("tab\tnewline\ncr\rcrlf\r\nbell\u{7}nul\u{0}"),
        "empty string": .string(""),
        "int": .int(42),
        "negative": .int(-7),
        "min": .int(.min),
        "max": .int(.max),
        "big": .uint(.max),
        "zero": .int(0),
        "byte": .int(255),
        "short": .int(65_535),
        "medium": .int(70_000),
        "large": .int(5_000_000_000),
        "pi": .double(.pi),
        "tenth": .double(0.1),
        "tiny": .double(.leastNonzeroMagnitude),
        "huge": .double(1.7976931348623157e308),
        "negative zero": .double(-0.0),
        "nan": .double(.nan),
        "infinity": .double(.infinity),
        "negative infinity": .double(-.infinity),
        "yes": .bool(true),
        "no": .bool(false),
        "date": .date(Date(timeIntervalSinceReferenceDate: 700_000_000)),
        "old date": .date(Date(timeIntervalSinceReferenceDate: -3_000_000_000)),
        "distant past": .date(.distantPast),
        "data": .data(Data((0..<200).map { UInt8($0) })),
        "empty data": .data(Data()),
        "array": .array([.int(1), .string("two"), .array([]), .dictionary([:])]),
        "nested": .dictionary(["inner": .dictionary(["deep": .array([.bool(true), .double(2.5), .string("string")])])]),
        "long array": .array((0..<40).map { .int(Int64($0)) }),
        "ünïcödé key": .string("value"),
        "key <&>": .int(1),
        String(repeating: "long key ", count: 10): .string(String(repeating: "x", count: 300)),
    ])

    /// The sample as Foundation property-list objects.
    static var sampleForFoundation: Any { foundationObject(sample) }

    static func foundationObject(_ value: StoredValue) -> Any {
        switch value {
        case .bool(let flag): flag
        case .int(let integer): integer
        case .uint(let integer): integer
        case .double(let real): real
        case .string(let string): string
        case .data(let data): data
        case .date(let date): date
        case .array(let items): items.map(foundationObject)
        case .dictionary(let entries): entries.mapValues(foundationObject)
        }
    }

    /// Converts what `PropertyListSerialization` returns; `nil` for anything a plist cannot hold.
    static func storedValue(fromFoundation object: Any) -> StoredValue? {
        switch object {
        case let flag as Bool where type(of: object) == Bool.self: return .bool(flag)
        case let string as String: return .string(string)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "d", "f": return .double(number.doubleValue)
            case "Q": return StoredValue(number.uint64Value)
            case "c", "B": return .bool(number.boolValue)
            default: return .int(number.int64Value)
            }
        case let items as [Any]:
            let converted = items.compactMap(storedValue(fromFoundation:))
            return converted.count == items.count ? .array(converted) : nil
        case let entries as [String: Any]:
            let converted = entries.compactMapValues(storedValue(fromFoundation:))
            return converted.count == entries.count ? .dictionary(converted) : nil
        default: return nil
        }
    }

    /// What the XML format keeps of `value`: whole-second dates (rounded down, as Foundation writes).
    static func xmlPrecision(_ value: StoredValue) -> StoredValue {
        switch value {
        case .date(let date):
            .date(Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.down)))
        case .array(let items): .array(items.map(xmlPrecision))
        case .dictionary(let entries): .dictionary(entries.mapValues(xmlPrecision))
        default: value
        }
    }

    /// Runs `body` with a fresh directory that is removed afterwards.
    static func withTemporaryDirectory<Result>(_ body: (URL) throws -> Result) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("PlistCodecTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    /// Decodes and reports only how it ended, for the fuzzing tests: `true` when decoded, `false`
    /// when a `corruptFile` error named the path, `nil` for any other outcome.
    static func decodeOutcome(_ data: Data) -> Bool? {
        do {
            _ = try PlistCodec.decode(data, path: "fuzz.plist")
            return true
        } catch StoreError.corruptFile(let path, let reason, nil) where path == "fuzz.plist" && !reason.isEmpty {
            return false
        } catch StoreError.unsupportedFile(let path, let reason, _) where path == "fuzz.plist" && !reason.isEmpty {
            return false  // damage that happens to make a valid value StoredKit cannot hold (a UID marker)
        } catch {
            return nil
        }
    }
}
