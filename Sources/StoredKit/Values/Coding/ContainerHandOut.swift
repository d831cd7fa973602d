import Synchronization

/// Turns a kept container box back into the `KeyedEncodingContainer<Key>` or
/// `KeyedDecodingContainer<Key>` it was made as, without asking the runtime for that type.
///
/// `container(keyedBy:)` is called from a type's `encode(to:)` or `init(from:)` through the
/// `Encoder` or `Decoder` protocol, so it runs unspecialized. Handing out a kept
/// `KeyedEncodingContainer<Key>` there, even by a bit cast, needs that type's metadata, and the
/// metadata of a generic type is found by a lookup in the runtime's table: a twelfth of encoding
/// a 20-tab sidebar, once per struct. `container` is a generic function applied to the container
/// type once, when the container is made, so it carries the metadata with it and each hand-out
/// is a plain call.
///
/// Both container types are one reference to the standard library's box around our container,
/// whatever the key type, so a session keeps that reference (`box`) and this object beside it, and
/// later gets the object back by `unsafeDowncast` (a cast the runtime does not check, so it needs
/// no metadata either). The caller reaches both through `Unmanaged`, at the call site: loaded
/// from the session's list and passed on, each was retained and released around the call, and
/// inside a helper function the compiler no longer saw that it need not.
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
