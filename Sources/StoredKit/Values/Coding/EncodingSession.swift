import Foundation

/// The `Encoder` handed to `encode(to:)` for one whole ``StoredValueEncoder/encode(_:)``; it is
/// also its own single-value container.
///
/// One instance encodes a whole tree, as one decoding session decodes one. Encoding a nested
/// value opens a frame: what the frame's container writes goes to the end of buffers shared by
/// every open frame (`entries`, `elements`), so a nested value costs no object and no array of
/// its own, only the dictionary or array it becomes. That is sound because encoding is
/// depth-first: a nested `encode(to:)` has returned (and its frame is closed, its writes taken
/// out of the buffers) before its caller writes on, so a container always writes to the frame
/// that made it. Containers that may be written to out of that order (nested containers,
/// `superEncoder()`) get a session of their own, finished when their parent's frame is.
///
/// `@exclusivity(unchecked)`: these properties change on every nested value, and the run-time
/// access check of a class's `var` was several percent of encoding time. No access to them spans
/// a call that could touch them again, and one encoding runs on one thread.
///
/// ```swift
/// try EncodingSession.encode(["volume": 0.5])  //=> {volume = 0.5}
/// ```
final class EncodingSession: Encoder, SingleValueEncodingContainer {
    /// What the open frame has been given so far.
    enum Frame {
        case empty
        case value(StoredValue)
        /// `encodeNil()` / `Optional.none`: a keyed parent omits it, anywhere else it is an error.
        case null
        /// `shapes`: the entry of ``keyedContainers`` whose dictionary shapes this frame may use.
        case keyed(shapes: Int?)
        case unkeyed
    }

    /// One key written to a keyed container, in order. `nil` removes the key (`encodeNil`), so a
    /// later write to the same key wins, as it would in a dictionary.
    struct Entry {
        let key: String
        var value: StoredValue?
    }

    /// A nested container or super encoder, and the slot (in `entries` or `elements`) its result fills.
    struct Pending {
        let index: Int
        let session: EncodingSession
    }

    static let nilInArrayReason = "a property list array cannot hold nil; leave the element out or use a sentinel value"

    @exclusivity(unchecked) var frame = Frame.empty
    /// What this session has seen so far (see ``EncodingFacts``).
    @exclusivity(unchecked) var facts = EncodingFacts.nothingWritten
    /// The keys from the session's own root to the open frame.
    @exclusivity(unchecked) var keys = StoredCodingKeyStack()
    /// The path to the session's own root (empty but for sessions of nested containers).
    private let rootPath: [any CodingKey]
    /// How many values are above the session's own root (`rootPath.count`).
    private let rootDepth: Int
    /// The keyed writes of every open frame, innermost last; the open frame's start at `entriesBase`.
    @exclusivity(unchecked) var entries = EncodingEntryBuffer()
    /// The unkeyed writes of every open frame; the open frame's start at `elementsBase`.
    @exclusivity(unchecked) var elements: [StoredValue] = []
    /// The nested sessions of every open frame; the open frame's start at `pendingBase`.
    @exclusivity(unchecked) var pending: [Pending] = []
    @exclusivity(unchecked) var entriesBase = 0
    @exclusivity(unchecked) var elementsBase = 0
    @exclusivity(unchecked) var pendingBase = 0
    /// The keyed containers made so far, one per key type, when `reusesContainers`: a container
    /// only refers to the session and writes to whichever frame is open, so one serves every value
    /// with those keys (the 20 tabs of a sidebar), instead of an object and two type lookups each.
    @exclusivity(unchecked) var keyedContainers: [MadeKeyedContainer] = []
    /// Only a session whose owner calls ``end()`` may keep containers (they refer back to it).
    @exclusivity(unchecked) private var reusesContainers: Bool
    /// A session ``EncodingSessionPool`` may hand to a later encoding: its containers refer to it
    /// without holding it (see ``KeyedContainer``), so that the pool can tell from the session's
    /// and the containers' reference counts that nobody kept one.
    @exclusivity(unchecked) var isPoolable: Bool
    /// The collection types seen so far with a direct path, found by one conformance lookup per
    /// type instead of one per collection (kept with the session in the pool).
    @exclusivity(unchecked) var directTypes: [DirectType] = []

    init(rootPath: [any CodingKey] = [], reusesContainers: Bool = false, isPoolable: Bool = false) {
        self.rootPath = rootPath
        rootDepth = rootPath.count
        self.reusesContainers = reusesContainers
        self.isPoolable = isPoolable
    }

    /// Encodes `value` into a ``StoredValue``: what ``StoredValueEncoder/encode(_:)`` does.
    static func encode<T: Encodable>(_ value: T) throws -> StoredValue {
        try encodeWithFacts(value).value
    }

    /// Encodes `value` and says what the encoding saw, for a store to admit it without a walk.
    static func encodeWithFacts<T: Encodable>(_ value: T, pool: EncodingSessionPool = .shared) throws -> EncodedValue {
        var session = pool.take()
        defer { pool.giveBack(&session) }
        do {
            try session.encodeHere(value)
            guard let stored = try session.finishFrame() else {
                throw StoreError.unrepresentable(key: "", reason: "a property list has no nil; remove the key instead")
            }
            return EncodedValue(value: stored, facts: session.facts)
        } catch let error as EncodingError {
            throw storeError(from: error)
        }
    }

    /// Places `value` as it is (a ``StoredValue`` property): its depth and dates are unknown.
    func place(_ value: StoredValue) {
        frame = .value(value)
        facts = .unknown
    }

    /// Errors thrown by a type's own `encode(to:)` are reported in StoredKit's terms.
    private static func storeError(from error: EncodingError) -> StoreError {
        switch error {
        case .invalidValue(let value, let context):
            .unrepresentable(
                key: StoredCodingPath.string(context.codingPath),
                reason: "\(type(of: value)) rejected it: \(context.debugDescription)"
            )
        @unknown default:
            .unrepresentable(key: "", reason: String(describing: error))
        }
    }

    /// Records the dictionary shapes this encoding learnt for the whole process.
    func recordLearntShapes() {
        var learnt: [DictionaryShape.Learnt] = []
        for index in keyedContainers.indices where keyedContainers[index].learntShapes > 0 {
            let made = keyedContainers[index]
            for shape in made.shapes.suffix(made.learntShapes) {
                learnt.append(DictionaryShape.Learnt(keyType: made.keyType, shape: shape))
            }
            keyedContainers[index].learntShapes = 0
        }
        DictionaryShape.learn(learnt)
    }

    /// Ends the encoding of a session that is not pooled: drops the kept containers, which refer
    /// back to this session. A container kept past this point still works but writes to nothing
    /// that is read.
    func end() {
        recordLearntShapes()
        reusesContainers = false
        keyedContainers = []
    }

    var codingPath: [any CodingKey] {
        keys.count == 0 ? rootPath : rootPath + keys.path
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Throws when a container in the open frame would be nested deeper than
    /// ``StoredValue/maximumCodableDepth``. Called before each nested value is encoded, so a value that
    /// recurses (a linked list of classes) is refused after at most that many levels, not after
    /// it has exhausted the stack.
    @inline(__always)
    func checkContainerDepth() throws(StoreError) {
        guard rootDepth + keys.count < StoredValue.maximumCodableDepth else {
            throw StoreError.unrepresentable(
                key: StoredCodingPath.abbreviated(codingPath), reason: StoredValue.tooDeepForCodableReason)
        }
    }

    // MARK: Frames

    /// Runs `body` with the path extended by `key` (a collection encoded element by element
    /// writes to no frame of its own, but its elements' paths go through it).
    @inline(__always)
    func entering<Result>(_ key: some CodingKey, _ body: () throws -> Result) rethrows -> Result {
        keys.push(key)
        defer { keys.pop() }
        return try body()
    }

    /// Encodes `value` through its own `encode(to:)` in a new frame at `key` and returns what the
    /// frame became; the open frame is open again afterwards, also when this throws.
    @inline(__always)
    func encodeInFrame<T: Encodable>(_ value: T, key: some CodingKey) throws -> StoredValue? {
        var outer = Frame.empty
        swap(&frame, &outer)
        let outerBases = (entriesBase, elementsBase, pendingBase)
        entriesBase = entries.count
        elementsBase = elements.count
        pendingBase = pending.count
        keys.push(key)
        defer {
            keys.pop()
            closeFrame()
            swap(&frame, &outer)
            (entriesBase, elementsBase, pendingBase) = outerBases
        }
        try value.encode(to: self)
        return try finishFrame()
    }

    /// Takes the open frame's writes out of the shared buffers.
    @inline(__always)
    private func closeFrame() {
        // One `removeLast()` at a time: removing a range goes through the general replacement
        // of a subrange, which cost a twentieth of encoding time for the four entries of a struct.
        entries.removeAll(from: entriesBase)
        while elements.count > elementsBase { elements.removeLast() }
        while pending.count > pendingBase { pending.removeLast() }
    }

    /// What the open frame became; `nil` stands for `encodeNil()`. A frame given nothing at all
    /// yields an empty dictionary, as an empty struct does. Called once per frame: the frame is
    /// left empty, its value moved out, where a copy would cost a retain now and a release when
    /// the frame is dropped.
    func finishFrame() throws -> StoredValue? {
        var finished = Frame.empty
        swap(&frame, &finished)
        switch consume finished {
        case .empty: return .dictionary([:])
        case .value(let value): return value
        case .null: return nil
        case .keyed(let shapes):
            try checkContainerDepth()
            return try finishKeyed(shapes: shapes)
        case .unkeyed:
            try checkContainerDepth()
            return try finishUnkeyed()
        }
    }

    private func finishKeyed(shapes registry: Int?) throws -> StoredValue {
        for index in pendingBase..<pending.count {
            let nested = pending[index]
            entries[nested.index].value = try nested.session.finishFrame()
            facts.absorb(nested.session.facts)
        }
        let range = entriesBase..<entries.count
        guard let registry else { return .dictionary(dictionary(of: range)) }
        // The shapes are reached without holding them: only this session changes its own
        // containers' shapes, and not before the loop is over.
        for index in keyedContainers[registry].shapes.indices {
            let shape = Unmanaged.passUnretained(keyedContainers[registry].shapes[index])
            if shape._withUnsafeGuaranteedRef({ $0.matches(entries, in: range) }) {
                return .dictionary(shape._withUnsafeGuaranteedRef { $0.take(from: &entries, in: range) })
            }
        }
        let dictionary = dictionary(of: range)
        if dictionary.count == range.count, keyedContainers[registry].shapes.count < DictionaryShape.maximumPerKeyType,
            range.allSatisfy({ entries[$0].value != nil }),
            let shape = DictionaryShape(keys: range.map { entries[$0].key })
        {
            keyedContainers[registry].shapes.append(shape)
            keyedContainers[registry].learntShapes += 1
        }
        return .dictionary(dictionary)
    }

    /// The dictionary of `entries[range]`, key by key: a later write to a key wins, `nil` removes it.
    private func dictionary(of range: Range<Int>) -> [String: StoredValue] {
        // Built once, at its final size: growing a dictionary key by key rehashes it several times.
        var dictionary = [String: StoredValue](minimumCapacity: range.count)
        for index in range {
            dictionary[entries[index].key] = entries[index].value
        }
        return dictionary
    }

    private func finishUnkeyed() throws -> StoredValue {
        for index in pendingBase..<pending.count {
            let nested = pending[index]
            guard let value = try nested.session.finishFrame() else {
                throw StoreError.unrepresentable(
                    key: StoredCodingPath.string(nested.session.codingPath),
                    reason: Self.nilInArrayReason
                )
            }
            facts.absorb(nested.session.facts)
            elements[nested.index] = value
        }
        return .array(Array(elements[elementsBase...]))
    }

    /// Makes the open frame keyed (a class and its superclass both asking for a keyed container
    /// share one dictionary) or unkeyed; switching kinds drops what the other kind wrote.
    @inline(__always)
    private func becomeKeyed(shapes: Int?) {
        if case .keyed = frame { return }
        frame = .keyed(shapes: shapes)
        closeFrame()
    }

    @inline(__always)
    private func becomeUnkeyed() {
        if case .unkeyed = frame { return }
        frame = .unkeyed
        closeFrame()
    }

    /// A session of its own for a nested container or super encoder at `key`, whose result fills
    /// slot `index` of `entries` or `elements` when the open frame finishes.
    func pendingSession(key: some CodingKey, index: Int) -> EncodingSession {
        let nested = EncodingSession(rootPath: codingPath + [key])
        pending.append(Pending(index: index, session: nested))
        return nested
    }

    // MARK: Containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let keyType = ObjectIdentifier(Key.self)
        for index in keyedContainers.indices where keyedContainers[index].keyType == keyType {
            becomeKeyed(shapes: index)
            // Neither the box nor its hand-out is retained for the call: the session keeps both.
            let handOut = Unmanaged.passUnretained(keyedContainers[index].handOut)
            let box = Unmanaged.passUnretained(keyedContainers[index].box)
            return handOut._withUnsafeGuaranteedRef { handOut in
                box._withUnsafeGuaranteedRef { box in
                    // Unchecked: the hand-out was made for this key type.
                    unsafeDowncast(handOut, to: ContainerHandOut<KeyedEncodingContainer<Key>>.self).container(box)
                }
            }
        }
        let container = KeyedEncodingContainer(KeyedContainer<Key>(session: self, owner: isPoolable ? nil : self))
        if reusesContainers {
            keyedContainers.append(
                MadeKeyedContainer(
                    keyType: keyType, box: unsafeBitCast(container, to: AnyObject.self),
                    handOut: ContainerHandOut<KeyedEncodingContainer<Key>>.shared, shapes: DictionaryShape.known(for: keyType)))
            becomeKeyed(shapes: keyedContainers.count - 1)
        } else {
            becomeKeyed(shapes: nil)
        }
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        becomeUnkeyed()
        return UnkeyedContainer(session: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }

    // MARK: SingleValueEncodingContainer

    func encodeNil() { frame = .null }
    func encode(_ value: Bool) { frame = .value(.bool(value)) }
    func encode(_ value: String) { frame = .value(.string(value)) }
    func encode(_ value: Double) { frame = .value(.double(value)) }
    func encode(_ value: Float) { frame = .value(.double(Double(value))) }
    func encode(_ value: Int) { frame = .value(.int(Int64(value))) }
    func encode(_ value: Int8) { frame = .value(.int(Int64(value))) }
    func encode(_ value: Int16) { frame = .value(.int(Int64(value))) }
    func encode(_ value: Int32) { frame = .value(.int(Int64(value))) }
    func encode(_ value: Int64) { frame = .value(.int(value)) }
    func encode(_ value: UInt) { frame = .value(StoredValue(UInt64(value))) }
    func encode(_ value: UInt8) { frame = .value(.int(Int64(value))) }
    func encode(_ value: UInt16) { frame = .value(.int(Int64(value))) }
    func encode(_ value: UInt32) { frame = .value(.int(Int64(value))) }
    func encode(_ value: UInt64) { frame = .value(StoredValue(value)) }

    @available(macOS 15.0, *)
    func encode(_ value: Int128) throws { frame = .value(try nativeValue(value, key: { nil })) }

    @available(macOS 15.0, *)
    func encode(_ value: UInt128) throws { frame = .value(try nativeValue(value, key: { nil })) }

    func encode<T: Encodable>(_ value: T) throws {
        // The value encodes into this same frame: a single-value wrapper adds no level.
        try encodeHere(value)
    }
}

/// A keyed container kept for reuse and its key type. (A struct, not a tuple: the runtime builds
/// a tuple's type information on first use in each process and looks it up on every later one.)
///
/// `box` is the container itself: `KeyedEncodingContainer` is one reference to the standard
/// library's box around our container, whatever its key type, so it is kept as that reference and
/// `handOut` turns it back into the container (see ``ContainerHandOut``).
///
/// `shapes` are the dictionary shapes of this key type: those the process knew when the container
/// was made, then the `learntShapes` this encoding added, which ``EncodingSession/end()`` records.
///
/// `box` is a `var` only so that the pool can ask whether it is the box's one holder.
struct MadeKeyedContainer {
    let keyType: ObjectIdentifier
    var box: AnyObject
    /// The ``ContainerHandOut`` of `KeyedEncodingContainer<Key>` for this key type.
    let handOut: AnyObject
    var shapes: [DictionaryShape]
    var learntShapes = 0
}
