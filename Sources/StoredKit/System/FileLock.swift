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
struct FileLock: Sendable {
    /// The lock file, `<file>.lock`.
    let path: String

    /// A lock guarding the file at `filePath`.
    init(guarding filePath: String) {
        path = filePath + ".lock"
    }

    /// Runs `body` while holding the lock, waiting as long as another holder keeps it.
    func withLock<Result>(_ body: () throws -> Result) throws -> Result {
        let descriptor = SystemCall.retryingInterrupts {
            open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode_t(0o600))
        }
        guard descriptor >= 0 else { throw StoreError.io(path: path, operation: "open the lock file", errno: errno) }
        defer { close(descriptor) }
        guard SystemCall.retryingInterrupts({ flock(descriptor, LOCK_EX) }) == 0 else {
            throw StoreError.io(path: path, operation: "lock", errno: errno)
        }
        return try body()
    }
}
