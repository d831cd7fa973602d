import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Watches a directory with inotify and calls back when one of the named files is
/// written, replaced, created or deleted.
///
/// Dispatch cannot watch files on Linux, but it can read a file descriptor: the inotify
/// descriptor is read by a Dispatch read source. The directory is watched rather than the
/// file, because an atomic replace (rename over the file) gives the file a new inode.
/// Callbacks may be spurious or coalesced; the caller re-reads and diffs.
final class DirectoryWatcher: Sendable {
    /// Dispatch sources are not `Sendable`; the mutex makes handing one between threads explicit.
    private let source: Mutex<(any DispatchSourceRead)?>

    /// Starts watching `directory` for changes to any of `fileNames`.
    init(directory: String, fileNames: Set<String>, onChange: @escaping @Sendable () -> Void) throws {
        #if canImport(Glibc)
            let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard descriptor >= 0 else { throw StoreError.io(path: directory, operation: "watch", errno: errno) }
            let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MODIFY | IN_MOVED_FROM)
            guard inotify_add_watch(descriptor, directory, mask) >= 0 else {
                let code = errno
                close(descriptor)
                throw StoreError.io(path: directory, operation: "watch", errno: code)
            }
            let source = DispatchSource.makeReadSource(
                fileDescriptor: descriptor,
                queue: DispatchQueue(label: "StoredKit.DirectoryWatcher")
            )
            source.setEventHandler {
                if Self.drainEvents(descriptor, matching: fileNames) { onChange() }
            }
            source.setCancelHandler { close(descriptor) }
            source.resume()
            self.source = Mutex(source)
        #else
            throw StoreError.io(path: directory, operation: "watch (inotify is Linux-only)", errno: ENOSYS)
        #endif
    }

    /// Stops watching; no callback starts after this returns.
    func cancel() {
        source.withLock { source in
            source?.cancel()
            source = nil
        }
    }

    deinit {
        cancel()
    }

    #if canImport(Glibc)
        /// Reads every pending inotify event; returns whether any concerned one of `fileNames`.
        private static func drainEvents(_ descriptor: Int32, matching fileNames: Set<String>) -> Bool {
            var relevant = false
            let capacity = 16 * 1024
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
            defer { buffer.deallocate() }
            while true {
                let count = read(descriptor, buffer, capacity)
                guard count > 0 else { break }
                var offset = 0
                let headerSize = MemoryLayout<inotify_event>.size
                while offset + headerSize <= count {
                    let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                    let nameLength = Int(event.len)
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        relevant = true
                    } else if nameLength > 0 {
                        let namePointer = (buffer + offset + headerSize).assumingMemoryBound(to: CChar.self)
                        let name = String(cString: namePointer)
                        if fileNames.contains(name) { relevant = true }
                    }
                    offset += headerSize + nameLength
                }
            }
            return relevant
        }
    #endif
}
