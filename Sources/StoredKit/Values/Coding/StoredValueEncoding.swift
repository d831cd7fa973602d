import Foundation

/// One key written to a keyed container, in order. `nil` removes the key (`encodeNil`, or an
/// optional that is `nil`), so a later write to the same key wins, as it would in a dictionary.
struct StoredKeyedEntry {
    let key: String
    var value: StoredValue?
}

/// The `Encoder` handed to `encode(to:)`; it is also its own single-value container and holds
/// what its keyed or unkeyed container writes.
///
/// Each encoder knows its parent and key instead of carrying a `codingPath` array, so a nested
/// value costs one small allocation and the path is built only when asked for. A keyed
/// container appends to `entries` and the dictionary is built once, at its final size, in
/// ``finish()``: growing a dictionary key by key rehashes it several times.
final class StoredValueEncoding: Encoder, SingleValueEncodingContainer {
    /// What this encoder has been given so far.
    enum State {
        case empty
        case value(StoredValue)
        /// `encodeNil()` / `Optional.none`: a keyed parent omits it, anywhere else it is an error.
        case null
        case keyed
        case unkeyed
    }

    static let nilInArrayReason = "a property list array cannot hold nil; leave the element out or use a sentinel value"

    let parent: StoredValueEncoding?
    let key: (any CodingKey)?
    /// How many encoders are above this one; a container it holds is `depth + 1` levels deep.
    let depth: Int
    // The run-time exclusivity check of a class's `var` showed up at several percent of encoding
    // time. These are only ever accessed one at a time (no `inout` spans a call that could touch
    // them again), so the static checks are enough.
    @exclusivity(unchecked) var state = State.empty
    /// The keyed container's writes, in order.
    @exclusivity(unchecked) var entries: [StoredKeyedEntry] = []
    /// The unkeyed container's elements; a pending slot holds a placeholder until ``finish()``.
    @exclusivity(unchecked) var elements: [StoredValue] = []
    /// Nested containers and super encoders, which may still be written to after they are
    /// handed out: their slot in `entries` or `elements` is filled in by ``finish()``.
    @exclusivity(unchecked) var pending: [(index: Int, encoder: StoredValueEncoding)] = []

    init(parent: StoredValueEncoding?, key: (any CodingKey)?) {
        self.parent = parent
        self.key = key
        depth = parent.map { $0.depth + 1 } ?? 0
    }

    /// Throws when a container held by this encoder would be nested deeper than
    /// ``StoredValue/maximumDepth``. Called before each nested value is encoded, so a value that
    /// recurses (a linked list of classes) is refused after at most that many levels, not after
    /// it has exhausted the stack.
    @inline(__always)
    func checkContainerDepth() throws(StoreError) {
        guard depth < StoredValue.maximumDepth else {
            throw StoreError.unrepresentable(key: StoredCodingPath.abbreviated(codingPath), reason: StoredValue.tooDeepReason)
        }
    }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var encoder: StoredValueEncoding? = self
        while let current = encoder {
            if let key = current.key { keys.append(key) }
            encoder = current.parent
        }
        return keys.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // A class and its superclass may both ask for a keyed container: they share one dictionary.
        if case .keyed = state {
            return KeyedEncodingContainer(StoredKeyedEncodingContainer(encoder: self))
        }
        state = .keyed
        entries = []
        entries.reserveCapacity(8)
        pending = []
        return KeyedEncodingContainer(StoredKeyedEncodingContainer(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .unkeyed = state {
            return StoredUnkeyedEncodingContainer(encoder: self)
        }
        state = .unkeyed
        elements = []
        pending = []
        return StoredUnkeyedEncodingContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }

    /// A nested encoder whose result is collected by ``finish()`` into `index` of `entries` or
    /// `elements`, whichever this encoder's container writes.
    func pendingChild(key: some CodingKey, index: Int) -> StoredValueEncoding {
        let child = StoredValueEncoding(parent: self, key: key)
        pending.append((index, child))
        return child
    }

    /// Drops the nested encoders this one is waiting for, and theirs: each refers back to its
    /// parent, so without this a nested container or super encoder would keep the tree alive.
    func release() {
        for (_, child) in pending { child.release() }
        pending = []
    }

    /// The finished value; `nil` stands for `encodeNil()`. An encoder given nothing at all
    /// yields an empty dictionary, as an empty struct does.
    func finish() throws -> StoredValue? {
        defer { release() }
        switch state {
        case .empty: return .dictionary([:])
        case .value(let value): return value
        case .null: return nil
        case .keyed:
            try checkContainerDepth()
            return try finishKeyed()
        case .unkeyed:
            try checkContainerDepth()
            return try finishUnkeyed()
        }
    }

    private func finishKeyed() throws -> StoredValue {
        for (index, encoder) in pending {
            entries[index].value = try encoder.finish()
        }
        var dictionary = [String: StoredValue](minimumCapacity: entries.count)
        for entry in entries {
            dictionary[entry.key] = entry.value
        }
        return .dictionary(dictionary)
    }

    private func finishUnkeyed() throws -> StoredValue {
        for (index, encoder) in pending {
            guard let value = try encoder.finish() else {
                throw StoreError.unrepresentable(
                    key: StoredCodingPath.string(encoder.codingPath),
                    reason: Self.nilInArrayReason
                )
            }
            elements[index] = value
        }
        return .array(elements)
    }

    func nativeValue(_ native: some StoredNativeCodable, key: () -> (any CodingKey)?) throws -> StoredValue {
        guard let value = native.nativeStoredValue else {
            throw StoreError.unrepresentable(
                key: StoredCodingPath.string(codingPath, appending: key()),
                reason: "\(native) does not fit in 64 bits; store it as a string"
            )
        }
        return value
    }

    // MARK: SingleValueEncodingContainer

    func encodeNil() {
        state = .null
    }

    func encode(_ value: Bool) { state = .value(.bool(value)) }
    func encode(_ value: String) { state = .value(.string(value)) }
    func encode(_ value: Double) { state = .value(.double(value)) }
    func encode(_ value: Float) { state = .value(.double(Double(value))) }
    func encode(_ value: Int) { state = .value(.int(Int64(value))) }
    func encode(_ value: Int8) { state = .value(.int(Int64(value))) }
    func encode(_ value: Int16) { state = .value(.int(Int64(value))) }
    func encode(_ value: Int32) { state = .value(.int(Int64(value))) }
    func encode(_ value: Int64) { state = .value(.int(value)) }
    func encode(_ value: UInt) { state = .value(StoredValue(UInt64(value))) }
    func encode(_ value: UInt8) { state = .value(.int(Int64(value))) }
    func encode(_ value: UInt16) { state = .value(.int(Int64(value))) }
    func encode(_ value: UInt32) { state = .value(.int(Int64(value))) }
    func encode(_ value: UInt64) { state = .value(StoredValue(value)) }

    @available(macOS 15.0, *)
    func encode(_ value: Int128) throws { state = .value(try nativeValue(value, key: { nil })) }

    @available(macOS 15.0, *)
    func encode(_ value: UInt128) throws { state = .value(try nativeValue(value, key: { nil })) }

    func encode<T: Encodable>(_ value: T) throws {
        // The value encodes into this same encoder: a single-value wrapper adds no level.
        try encodeHere(value)
    }
}
