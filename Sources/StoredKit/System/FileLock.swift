#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Cross-process exclusion for one store file: an exclusive `flock` on the sibling
/// `<file>.lock`, held for the duration of ``withLock(_:)``.
///
/// The lock lives on a separate file because the store file itself is replaced by rename
/// on every write, and a lock on a replaced inode would exclude nobody. The lock file is
/// never deleted: deleting it while another process waits on it would let two writers in.
/// Each call opens its own descriptor, so two threads of one process exclude each other
/// exactly as two processes do. The kernel drops the lock if the process dies.
///
/// Whatever else is found at the lock path (a symbolic link, even a dangling one, a FIFO, a
/// directory) is refused with ``StoreError/notRegularFile(path:found:)``: following a planted
/// link would create or lock a file elsewhere.
struct FileLock: Sendable {
    /// The lock file, `<file>.lock`.
    let path: String

    /// A lock guarding the file at `filePath`.
    init(guarding filePath: String) {
        path = filePath + ".lock"
    }

    /// Runs `body` while holding the lock, waiting as long as another holder keeps it.
    func withLock<Result>(_ body: () throws -> Result) throws -> Result {
        // O_NOFOLLOW: never through a link; O_NONBLOCK: a planted FIFO must not wait for a writer
        // (flock still blocks: it has its own flag for that).
        let descriptor = SystemCall.retryingInterrupts {
            open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode_t(0o600))
        }
        guard descriptor >= 0 else {
            let code = errno
            if let found = FileSystem.nonRegularFileKind(at: path) { throw StoreError.notRegularFile(path: path, found: found) }
            throw StoreError.io(path: path, operation: "open the lock file", errno: code)
        }
        defer { close(descriptor) }
        try FileSystem.requireRegularFile(descriptor, path: path)
        guard SystemCall.retryingInterrupts({ flock(descriptor, LOCK_EX) }) == 0 else {
            throw StoreError.io(path: path, operation: "lock", errno: errno)
        }
        return try body()
    }
}
