import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Watches a directory with inotify and calls back when one of the named files is
/// written, replaced, created or deleted, or when the directory itself is removed or moved.
///
/// Dispatch cannot watch files on Linux, but it can read a file descriptor: every watcher of
/// the process shares one inotify descriptor (see ``InotifyHub``), read by a Dispatch read
/// source. The directory is watched rather than the file, because an atomic replace (rename
/// over the file) gives the file a new inode, and a deleted file must be noticed too.
/// Callbacks may be spurious or coalesced; the caller re-reads and diffs.
final class DirectoryWatcher: Sendable {
    private let subscription: Mutex<InotifyHub.Subscription?>

    /// Starts watching `directory` for changes to any of `fileNames`.
    init(directory: String, fileNames: Set<String>, onChange: @escaping @Sendable () -> Void) throws {
        let subscription = try InotifyHub.shared.subscribe(directory: directory, fileNames: fileNames, onChange: onChange)
        self.subscription = Mutex(subscription)
    }

    /// A watcher of `directory`, or `nil` while there is no directory at that path (it is missing,
    /// or a path on the way is not a directory): a backend attaches one later, once it exists.
    static func ifDirectoryExists(
        _ directory: String, fileNames: Set<String>, onChange: @escaping @Sendable () -> Void
    ) throws -> DirectoryWatcher? {
        do {
            return try DirectoryWatcher(directory: directory, fileNames: fileNames, onChange: onChange)
        } catch StoreError.io(_, _, let code) where code == ENOENT || code == ENOTDIR {
            return nil
        }
    }

    /// True once the directory was removed or moved away: this watcher hears nothing more, and
    /// a directory created again at the path needs a new watcher.
    var isLost: Bool {
        subscription.withLock { subscription in
            guard let subscription else { return true }
            return !InotifyHub.shared.isActive(subscription)
        }
    }

    /// Stops watching; no callback starts after this returns, except one already being delivered.
    func cancel() {
        subscription.withLock { subscription in
            if let subscription { InotifyHub.shared.unsubscribe(subscription) }
            subscription = nil
        }
    }

    deinit {
        cancel()
    }
}
