import Foundation

extension EncodingSession {
    /// Appends to the open frame's entries; `encodeNil` writes a removal, `encodeIfPresent` of
    /// `nil` writes nothing.
    ///
    /// `KeyedEncodingContainer` copies the container out of its box on every call, and the
    /// session hands the same container out again, so it holds as little as it can.
    ///
    /// A pooled session's containers refer to it without holding it (`owner` is `nil`): the
    /// session owns them, and the pool reuses a session only when it and each container are held
    /// by nobody else, which it can only tell if the containers do not hold the session. A kept
    /// container found then makes the pool keep that session alive for good (see
    /// ``EncodingSessionPool``), so `session` never dangles. Every other session's containers
    /// hold it (`owner`), as they always did. The writes reach the session through
    /// `_withUnsafeGuaranteedRef`: an `unowned(unsafe)` reference would be retained and released
    /// around each use.
    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        private let reference: Unmanaged<EncodingSession>
        /// The session itself, held, unless it is pooled.
        let owner: EncodingSession?

        init(session: EncodingSession, owner: EncodingSession?) {
            reference = .passUnretained(session)
            self.owner = owner
        }

        /// The session, for the calls that are not on every write.
        var session: EncodingSession { reference.takeUnretainedValue() }

        var codingPath: [any CodingKey] { session.codingPath }

        @inline(__always)
        private func set(_ value: consuming StoredValue?, forKey key: Key) {
            let entry = Entry(key: key.stringValue, value: value)
            reference._withUnsafeGuaranteedRef { $0.entries.append(entry) }
        }

        mutating func encodeNil(forKey key: Key) { set(nil, forKey: key) }
        mutating func encode(_ value: Bool, forKey key: Key) { set(.bool(value), forKey: key) }
        mutating func encode(_ value: String, forKey key: Key) { set(.string(value), forKey: key) }
        mutating func encode(_ value: Double, forKey key: Key) { set(.double(value), forKey: key) }
        mutating func encode(_ value: Float, forKey key: Key) { set(.double(Double(value)), forKey: key) }
        mutating func encode(_ value: Int, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
        mutating func encode(_ value: Int8, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
        mutating func encode(_ value: Int16, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
        mutating func encode(_ value: Int32, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
        mutating func encode(_ value: Int64, forKey key: Key) { set(.int(value), forKey: key) }
        mutating func encode(_ value: UInt, forKey key: Key) { set(StoredValue(UInt64(value)), forKey: key) }
        mutating func encode(_ value: UInt8, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
        mutating func encode(_ value: UInt16, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
        mutating func encode(_ value: UInt32, forKey key: Key) { set(.int(Int64(value)), forKey: key) }
        mutating func encode(_ value: UInt64, forKey key: Key) { set(StoredValue(value), forKey: key) }

        @available(macOS 15.0, *)
        mutating func encode(_ value: Int128, forKey key: Key) throws {
            set(try session.nativeValue(value, key: { key }), forKey: key)
        }

        @available(macOS 15.0, *)
        mutating func encode(_ value: UInt128, forKey key: Key) throws {
            set(try session.nativeValue(value, key: { key }), forKey: key)
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            set(try reference._withUnsafeGuaranteedRef { try $0.box(value, key: key) }, forKey: key)
        }

        // Synthesized `encode(to:)` writes every optional property through these; the protocol's
        // own versions would reach the methods above through one more dynamic call each.
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) { if let value { encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) { if let value { encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) { if let value { encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) { if let value { encode(value, forKey: key) } }

        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            nested(forKey: key).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            nested(forKey: key).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            nested(forKey: StoredSuperKey())
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            nested(forKey: key)
        }

        /// A session whose result is collected when this container's frame finishes.
        private func nested(forKey key: some CodingKey) -> EncodingSession {
            let index = session.entries.count
            session.entries.append(Entry(key: key.stringValue, value: nil))
            return session.pendingSession(key: key, index: index)
        }
    }

    /// Appends to the open frame's elements; `nil` cannot be stored in a property list array and throws.
    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let session: EncodingSession

        var codingPath: [any CodingKey] { session.codingPath }
        var count: Int { session.elements.count - session.elementsBase }

        private var nextKey: StoredIndexKey { StoredIndexKey(index: count) }

        @inline(__always)
        private func append(_ value: consuming StoredValue) {
            session.elements.append(value)
        }

        mutating func encodeNil() throws {
            throw StoreError.unrepresentable(
                key: StoredCodingPath.string(codingPath, appending: nextKey),
                reason: EncodingSession.nilInArrayReason
            )
        }

        mutating func encode(_ value: Bool) { append(.bool(value)) }
        mutating func encode(_ value: String) { append(.string(value)) }
        mutating func encode(_ value: Double) { append(.double(value)) }
        mutating func encode(_ value: Float) { append(.double(Double(value))) }
        mutating func encode(_ value: Int) { append(.int(Int64(value))) }
        mutating func encode(_ value: Int8) { append(.int(Int64(value))) }
        mutating func encode(_ value: Int16) { append(.int(Int64(value))) }
        mutating func encode(_ value: Int32) { append(.int(Int64(value))) }
        mutating func encode(_ value: Int64) { append(.int(value)) }
        mutating func encode(_ value: UInt) { append(StoredValue(UInt64(value))) }
        mutating func encode(_ value: UInt8) { append(.int(Int64(value))) }
        mutating func encode(_ value: UInt16) { append(.int(Int64(value))) }
        mutating func encode(_ value: UInt32) { append(.int(Int64(value))) }
        mutating func encode(_ value: UInt64) { append(StoredValue(value)) }

        @available(macOS 15.0, *)
        mutating func encode(_ value: Int128) throws {
            append(try session.nativeValue(value, key: { nextKey }))
        }

        @available(macOS 15.0, *)
        mutating func encode(_ value: UInt128) throws {
            append(try session.nativeValue(value, key: { nextKey }))
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let key = nextKey
            guard let stored = try session.box(value, key: key) else {
                throw StoreError.unrepresentable(
                    key: StoredCodingPath.string(codingPath, appending: key),
                    reason: EncodingSession.nilInArrayReason
                )
            }
            append(stored)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
        {
            nextNested().container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            nextNested().unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            nextNested()
        }

        /// Reserves the next slot for a session that fills it when this container's frame finishes.
        private func nextNested() -> EncodingSession {
            let index = session.elements.count
            let key = nextKey
            append(.bool(false))  // placeholder, replaced when the frame finishes
            return session.pendingSession(key: key, index: index)
        }
    }
}
