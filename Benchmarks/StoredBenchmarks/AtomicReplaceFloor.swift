import Foundation

/// The honest floor of a durable write to a file that must never be seen half written: what
/// the plist store does, done raw. A temporary file is created, written, `fsync`ed, renamed
/// over the target, and the directory is `fsync`ed so the rename itself is on disk.
///
/// Two syncs, because they make two different things durable: the first the new file's bytes
/// (without it, a crash after the rename can leave the name pointing at an empty or partial
/// file: ext4 commits the rename's journal entry independently of the data), the second the
/// directory entry (without it, a crash can bring back the old file after the write returned).
///
/// ```swift
/// let floor = try AtomicReplaceFloor(in: context, size: 420)
/// let oneReplace = try floor.replaceOnce()
/// ```
final class AtomicReplaceFloor {
    private let directory: String
    private let target: String
    private let temporary: String
    private let directoryDescriptor: Int32
    private var bytes: [UInt8]

    /// Files of `size` bytes, in a directory of their own in the work directory.
    init(in context: RunContext, size: Int) throws {
        directory = try context.makeDirectory("atomic-replace").path
        target = directory + "/floor.plist"
        temporary = directory + "/.floor.plist.tmp"
        bytes = [UInt8](repeating: 0x5A, count: max(size, 1))
        directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY)
        guard directoryDescriptor >= 0 else { throw BenchmarkError.unexpected("cannot open \(directory): errno \(errno)") }
        _ = try replaceOnce()  // the target exists before the first timed replace, as the store's file does
    }

    deinit {
        close(directoryDescriptor)
    }

    /// Replaces the target with a new file (one byte changed); returns how long that took.
    func replaceOnce() throws -> Duration {
        bytes[0] &+= 1
        let clock = ContinuousClock()
        let start = clock.now
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchmarkError.unexpected("cannot create \(temporary): errno \(errno)") }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0, rename(temporary, target) == 0, fsync(directoryDescriptor) == 0 else {
            throw BenchmarkError.unexpected("atomic replace of \(target) failed: errno \(errno)")
        }
        return clock.now - start
    }
}
