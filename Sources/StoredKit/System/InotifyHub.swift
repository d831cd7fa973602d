import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one inotify instance of this process, shared by every ``DirectoryWatcher``.
///
/// A user may open only `fs.inotify.max_user_instances` inotify instances (often 128), so
/// one per store would fail an app (or a test suite) with a few hundred stores. One instance
/// holds a watch per directory (any number: `max_user_watches` is far larger), one Dispatch
/// read source drains it, and each event goes to the subscribers of its directory whose file
/// names it concerns. Callbacks run on the hub's serial queue, so they must be quick.
final class InotifyHub: Sendable {
    static let shared = InotifyHub()

    /// One subscriber's interest in one directory.
    struct Subscription: Hashable, Sendable {
        /// The inotify watch descriptor of the directory; shared by subscribers of the same directory.
        let watch: Int32
        let id: Int
    }

    private struct Subscriber {
        let fileNames: Set<String>
        let onChange: @Sendable () -> Void
    }

    private struct State {
        var descriptor: Int32 = -1
        var source: (any DispatchSourceRead)?
        var nextID = 0
        var subscribers: [Int32: [Int: Subscriber]] = [:]
    }

    private let state = Mutex(State())

    /// How long events are gathered before subscribers are told (the delay it adds to hearing of
    /// another process's write).
    static let gatheringWindow: DispatchTimeInterval = .milliseconds(2)

    #if canImport(Glibc)
        private static let mask = UInt32(
            IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MODIFY | IN_MOVED_FROM | IN_DELETE_SELF
                | IN_MOVE_SELF)
    #endif

    /// Starts calling `onChange` when one of `fileNames` in `directory` is written, replaced,
    /// created or deleted, and when the directory itself goes away (then the subscription is
    /// lost: see ``isActive(_:)``).
    func subscribe(
        directory: String, fileNames: Set<String>, onChange: @escaping @Sendable () -> Void
    ) throws -> Subscription {
        #if canImport(Glibc)
            try state.withLock { state in
                let descriptor = try self.descriptor(&state)
                let watch = inotify_add_watch(descriptor, directory, Self.mask)
                guard watch >= 0 else { throw StoreError.io(path: directory, operation: "watch", errno: errno) }
                state.nextID += 1
                state.subscribers[watch, default: [:]][state.nextID] = Subscriber(fileNames: fileNames, onChange: onChange)
                return Subscription(watch: watch, id: state.nextID)
            }
        #else
            throw StoreError.io(path: directory, operation: "watch (inotify is Linux-only)", errno: ENOSYS)
        #endif
    }

    /// Stops the calls for `subscription`; the directory's watch goes with its last subscriber.
    func unsubscribe(_ subscription: Subscription) {
        #if canImport(Glibc)
            state.withLock { state in
                guard state.subscribers[subscription.watch]?.removeValue(forKey: subscription.id) != nil else { return }
                if state.subscribers[subscription.watch]?.isEmpty == true {
                    state.subscribers[subscription.watch] = nil
                    inotify_rm_watch(state.descriptor, subscription.watch)
                }
            }
        #endif
    }

    /// Whether `subscription` still hears of changes: false once its directory was removed or
    /// moved (a directory created again at the same path needs a new subscription).
    func isActive(_ subscription: Subscription) -> Bool {
        state.withLock { $0.subscribers[subscription.watch]?[subscription.id] != nil }
    }

    #if canImport(Glibc)
        /// The shared descriptor, created (with its read source) by the first subscriber.
        private func descriptor(_ state: inout State) throws -> Int32 {
            if state.descriptor >= 0 { return state.descriptor }
            let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard descriptor >= 0 else { throw StoreError.io(path: "inotify", operation: "watch", errno: errno) }
            let queue = DispatchQueue(label: "StoredKit.InotifyHub")
            let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
            // One commit is several writes (the log, then maybe a checkpoint), and several processes
            // may commit at once: gathering what arrives within a short window wakes each
            // subscriber once for all of it instead of once per write.
            source.setEventHandler { [self] in
                self.state.withLock { $0.source }?.suspend()
                queue.asyncAfter(deadline: .now() + Self.gatheringWindow) { [self] in
                    deliver(InotifyEvents.drain(descriptor))
                    self.state.withLock { $0.source }?.resume()
                }
            }
            source.resume()
            state.descriptor = descriptor
            state.source = source
            return descriptor
        }

        /// Calls the subscribers `events` concern, outside the lock (a callback may unsubscribe).
        private func deliver(_ events: InotifyEvents) {
            let callbacks = state.withLock { state -> [@Sendable () -> Void] in
                var callbacks: [@Sendable () -> Void] = []
                for (watch, subscribers) in state.subscribers {
                    let names = events.names[watch] ?? []
                    let isLost = events.lostWatches.contains(watch)
                    for subscriber in subscribers.values
                    where events.overflowed || isLost || !subscriber.fileNames.isDisjoint(with: names) {
                        callbacks.append(subscriber.onChange)
                    }
                    if isLost {
                        // A moved directory keeps its watch in the kernel; a removed one has lost it already.
                        inotify_rm_watch(state.descriptor, watch)
                        state.subscribers[watch] = nil
                    }
                }
                return callbacks
            }
            for callback in callbacks { callback() }
        }
    #endif
}

#if canImport(Glibc)
    /// What one read of the inotify descriptor said: file names per watched directory, and
    /// directories whose watch ended.
    struct InotifyEvents {
        var names: [Int32: Set<String>] = [:]
        var lostWatches: Set<Int32> = []
        /// The kernel dropped events: every subscriber must look.
        var overflowed = false

        /// Reads every pending event from `descriptor`.
        static func drain(_ descriptor: Int32) -> InotifyEvents {
            var events = InotifyEvents()
            let capacity = 16 * 1024
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
            defer { buffer.deallocate() }
            let headerSize = MemoryLayout<inotify_event>.size
            while true {
                let count = read(descriptor, buffer, capacity)
                guard count > 0 else { break }
                var offset = 0
                while offset + headerSize <= count {
                    let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                    let nameLength = Int(event.len)
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        events.overflowed = true
                    } else if event.mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                        events.lostWatches.insert(event.wd)
                    } else if nameLength > 0 {
                        let namePointer = (buffer + offset + headerSize).assumingMemoryBound(to: CChar.self)
                        events.names[event.wd, default: []].insert(String(cString: namePointer))
                    }
                    offset += headerSize + nameLength
                }
            }
            return events
        }
    }
#endif
