// STAND-IN built on Foundation's PropertyListSerialization; the real codec replaces this file.
import Foundation

enum PlistCodec {
    static func decode(_ data: Data, path: String) throws -> StoredValue {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw StoreError.corruptFile(path: path, reason: "not a property list", quarantinedAt: nil)
        }
        guard let value = storedValue(object) else {
            throw StoreError.corruptFile(path: path, reason: "unsupported property-list object", quarantinedAt: nil)
        }
        return value
    }

    static func encode(_ value: StoredValue, format: PlistFormat) throws -> Data {
        let serializationFormat: PropertyListSerialization.PropertyListFormat = format == .xml ? .xml : .binary
        return try PropertyListSerialization.data(fromPropertyList: object(value), format: serializationFormat, options: 0)
    }

    private static func storedValue(_ object: Any) -> StoredValue? {
        switch object {
        case let string as String: return .string(string)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let array as [Any]:
            var values: [StoredValue] = []
            for element in array {
                guard let value = storedValue(element) else { return nil }
                values.append(value)
            }
            return .array(values)
        case let dictionary as [String: Any]:
            var values: [String: StoredValue] = [:]
            for (key, element) in dictionary {
                guard let value = storedValue(element) else { return nil }
                values[key] = value
            }
            return .dictionary(values)
        case let bool as Bool where type(of: object) == Bool.self: return .bool(bool)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "d", "f": return .double(number.doubleValue)
            case "Q", "L", "I", "S", "C":
                return StoredValue(number.uint64Value)
            default: return .int(number.int64Value)
            }
        default: return nil
        }
    }

    private static func object(_ value: StoredValue) -> Any {
        switch value {
        case .bool(let bool): bool
        case .int(let int): NSNumber(value: int)
        case .uint(let uint): NSNumber(value: uint)
        case .double(let double): NSNumber(value: double)
        case .string(let string): string
        case .data(let data): data
        case .date(let date): date
        case .array(let values): values.map(object)
        case .dictionary(let values): values.mapValues(object)
        }
    }
}
