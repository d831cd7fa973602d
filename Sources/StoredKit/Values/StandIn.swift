struct StoredValueEncoder { func encode<T: Encodable>(_ value: T) throws -> StoredValue { throw StoreError.unrepresentable(key: "", reason: "stand-in") } }
struct StoredValueDecoder { func decode<T: Decodable>(_ type: T.Type, from value: StoredValue) throws -> T { throw StoreError.unrepresentable(key: "", reason: "stand-in") } }
