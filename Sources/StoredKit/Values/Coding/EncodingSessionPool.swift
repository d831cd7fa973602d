import Synchronization

/// Keeps the last finished top-level ``EncodingSession`` for the next encoding, with its buffers
/// and the keyed containers it made.
///
/// A new session cost about a twentieth of encoding a 20-tab sidebar: the object, its buffers
/// growing again, and for each key type a container box whose generic types the runtime must look
/// up. A `set` of a settings struct pays that on every call.
///
/// Reusing a session is only sound if nothing from its last encoding can write into the next one.
/// A type may keep what its `encode(to:)` was given: the encoder (the session itself), a keyed
/// container (whose box the session keeps and hands out again), an unkeyed or single-value
/// container (which hold the session). So a session is taken back only when it and every box it
/// keeps have no holder but the pool: the boxes hold the session without counting
/// (``EncodingSession/KeyedContainer``), so those checks cover everything it handed out. The
/// session is also asked for weak and unowned references (the runtime counts both), which
/// `isKnownUniquelyReferenced` does not see but which could reach it again.
///
/// A session something was kept of is never used for another encoding; what was kept writes to
/// a session nobody reads. If only the session was kept, it drops its boxes and makes any new
/// ones hold it, and lives as long as its holders. If a box was kept, the session is kept alive
/// for good (the box refers to it without holding it) and the pool turns itself off, so that
/// from then on every encoding makes a session whose containers hold it, as before pooling: at
/// most one session per encoding running at that moment is kept alive.
///
/// ```swift
/// let pool = EncodingSessionPool.shared
/// var session = pool.take()
/// try session.encodeHere(["volume": 0.5])
/// pool.giveBack(&session)
/// ```
final class EncodingSessionPool: Sendable {
    /// The pool every ``StoredValueEncoder`` encoding uses (tests make pools of their own).
    static let shared = EncodingSessionPool()

    /// The pooled session, if one is idle, and whether pooling is still on.
    ///
    /// `@unchecked Sendable`: an idle session is referenced by nothing but this slot (the check
    /// in ``giveBack(_:)``), and it is taken out before a thread uses it.
    private struct Slot: @unchecked Sendable {
        var idle: EncodingSession?
        var isEnabled = true
    }

    /// A session taken out of the slot (`@unchecked Sendable` for the same reason as ``Slot``).
    private struct Taken: @unchecked Sendable {
        let session: EncodingSession?
        let isEnabled: Bool
    }

    private let slot = Mutex(Slot())

    /// A session whose buffers hold more than this many entries or elements is not kept: one huge
    /// value should not pin its buffers for the rest of the process.
    static let maximumKeptCapacity = 4096

    /// Whether the pool keeps a session for the next encoding.
    var hasIdleSession: Bool {
        slot.withLock { $0.idle != nil }
    }

    /// A session for one top-level encoding: the idle one, or a new one.
    func take() -> EncodingSession {
        let taken = slot.withLock { slot in
            let taken = Taken(session: slot.idle, isEnabled: slot.isEnabled)
            slot.idle = nil
            return taken
        }
        if let session = taken.session { return session }
        return EncodingSession(reusesContainers: true, isPoolable: taken.isEnabled)
    }

    /// Ends the encoding `session` did: keeps it for the next one if nothing of it was kept by
    /// the value, and otherwise retires it for good (see the type's description).
    func giveBack(_ session: inout EncodingSession) {
        guard session.isPoolable else {
            session.end()
            return
        }
        session.recordLearntShapes()
        guard session.containersAreFree() else {
            retire(session)
            return
        }
        // `_getWeakRetainCount` and `_getUnownedRetainCount` are the runtime's own counts (1 for
        // an object nobody refers to weakly, or unowned); the standard library has no other way
        // to ask.
        let sessionIsFree =
            isKnownUniquelyReferenced(&session) && _getWeakRetainCount(session) == 1
            && _getUnownedRetainCount(session) == 1
        guard sessionIsFree else {
            session.stopPooling()
            return
        }
        guard session.resetForReuse() else { return }
        slot.withLock { slot in
            if slot.isEnabled, slot.idle == nil { slot.idle = session }
        }
    }

    /// Keeps `session`, a box of which was kept, alive for the rest of the process, and turns pooling off.
    private func retire(_ session: EncodingSession) {
        // Deliberately never released: a kept container box refers to the session without holding it.
        _ = Unmanaged.passRetained(session)
        slot.withLock { slot in
            slot.isEnabled = false
            slot.idle = nil
        }
    }

    /// Whether pooling is still on (off once something kept a container or an encoder).
    var isEnabled: Bool {
        slot.withLock { $0.isEnabled }
    }
}

extension EncodingSession {
    /// Makes the session one that is never pooled, when something kept it but none of its boxes:
    /// the boxes (which do not hold it) are dropped, and any container made from now on holds it
    /// and is not kept by it (``end()``), so a kept encoder used again makes no reference cycle.
    func stopPooling() {
        isPoolable = false
        end()
    }

    /// Whether the session is the only holder of every container box it keeps.
    func containersAreFree() -> Bool {
        // Through the buffer: an element reached through the array's subscript may be copied to a
        // temporary first, and that copy would count as a second holder.
        keyedContainers.withUnsafeMutableBufferPointer { made in
            made.indices.allSatisfy { isKnownUniquelyReferenced(&made[$0].box) }
        }
    }

    /// Puts the session back in the state of a new one, keeping its buffers' capacity, its
    /// containers and the direct collection types it found. Returns `false` when it should not be
    /// kept (buffers grown too large, or a key left on the path).
    func resetForReuse() -> Bool {
        guard keys.count == 0, entries.capacity <= EncodingSessionPool.maximumKeptCapacity,
            elements.capacity <= EncodingSessionPool.maximumKeptCapacity
        else { return false }
        frame = .empty
        facts = .nothingWritten
        entries.removeAll(from: 0)
        elements.removeAll(keepingCapacity: true)
        pending.removeAll(keepingCapacity: true)
        entriesBase = 0
        elementsBase = 0
        pendingBase = 0
        return true
    }
}
