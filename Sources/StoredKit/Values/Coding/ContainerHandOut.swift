import Synchronization

/// Turns a kept container box back into the `KeyedEncodingContainer<Key>` or
/// `KeyedDecodingContainer<Key>` it was made as, without asking the runtime for that type.
///
/// `container(keyedBy:)` is called from a type's `encode(to:)` or `init(from:)` through the
/// `Encoder` or `Decoder` protocol, so it runs unspecialized. Handing out a kept
/// `KeyedEncodingContainer<Key>` there, even by a bit cast, needs that type's metadata, and the
/// metadata of a generic type is found by a lookup in the runtime's table: a twelfth of encoding
/// a 20-tab sidebar, once per struct. `container` is a generic function applied to the container
/// type once per process (by ``shared``), so it carries the metadata with it and each hand-out is
/// a plain call.
///
/// Both container types are one reference to the standard library's box around our container,
/// whatever the key type, so a session keeps that reference (`box`) and this object beside it, and
/// gets the object back by `unsafeDowncast`. In an optimized build that cast is not checked and
/// needs no metadata either; a debug build checks it, which is how the tests catch a hand-out used
/// for the wrong type. (`unsafeBitCast` in `reinterpret` checks the sizes, so a standard library
/// whose containers were not one reference wide would stop there, not corrupt memory.)
///
/// Call sites read the box and the hand-out through `Unmanaged._withUnsafeGuaranteedRef`, inline:
/// passed as ordinary arguments, or through a helper function, each was retained and released
/// around the call.
///
/// ```swift
/// let handOut = ContainerHandOut<KeyedEncodingContainer<MyKeys>>.shared
/// let box = unsafeBitCast(KeyedEncodingContainer(myContainer), to: AnyObject.self)
/// // later, where only `Key` is known:
/// unsafeDowncast(handOut, to: ContainerHandOut<KeyedEncodingContainer<Key>>.self).container(box)
/// ```
final class ContainerHandOut<Container>: Sendable {
    /// `box` as a `Container`.
    let container: @Sendable (AnyObject) -> Container = reinterpret

    private init() {}

    /// The hand-out of `Container`, made once per process: a session that is not pooled (every
    /// decoding) would otherwise allocate it, and the context of `container`, for each key type.
    /// Computed under a process-wide lock, which a session takes once per key type it meets (the
    /// decoder once per decoding); sessions then keep the answer.
    static var shared: AnyObject {
        let id = ObjectIdentifier(Container.self)
        return sharedHandOuts.withLock { made in
            if let handOut = made[id] { return handOut }
            let handOut = ContainerHandOut()
            made[id] = handOut
            return handOut
        }
    }
}

/// ``ContainerHandOut/shared`` of each container type made so far, by that type.
private let sharedHandOuts = Mutex<[ObjectIdentifier: any AnyObject & Sendable]>([:])

/// `box` as a `Container`, a type one reference wide. Never inlined nor specialized, so that
/// applying it to a type captures that type's metadata (see ``ContainerHandOut``).
@inline(never)
@_semantics("optimize.sil.specialize.generic.never")
private func reinterpret<Container>(_ box: AnyObject) -> Container {
    unsafeBitCast(box, to: Container.self)
}
