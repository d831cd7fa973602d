import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replaces a file so that readers and crashes only ever see the old bytes or the new bytes.
///
/// The bytes go to a temporary file in the same directory (`.<file>.tmp-<pid>-<random>`),
/// which is synced, given its final mode, renamed over the target, and then the directory
/// is synced so the rename itself survives a power loss. The target is never truncated or
/// written in place. Callers that may run concurrently must serialize writes of one target
/// (``FileLock``); the temporary name keeps even unserialized writers from clobbering each
/// other's half-written files. The temporary file is created exclusively and never through a
/// symbolic link (`O_EXCL | O_NOFOLLOW`), so a file planted under its name is never written.
/// A FIFO, device or socket at the target is refused, never replaced.
///
/// The `stored` CLI writes its exports with it too, so they are private like a store:
///
/// ```swift
/// try AtomicFile.write(Data("{}".utf8), to: "/home/me/backup.json")  // mode 0600 when new
/// ```
package enum AtomicFile {
    /// The mode of a file that did not exist before: readable and writable by its owner only.
    static let newFileMode: mode_t = 0o600

    /// The name prefix of this target's temporary files, `.<file>.tmp-`.
    static func temporaryNamePrefix(for path: String) -> String {
        "." + SystemCall.fileName(of: path) + ".tmp-"
    }

    /// Writes `data` to `path` durably and atomically, and returns the identity of the new file.
    ///
    /// An existing file keeps its mode (and, when running as root, its owner); a new file gets
    /// ``newFileMode``. On failure the temporary file is removed, the previous file is intact
    /// and a ``StoreError/io(path:operation:errno:)`` names `path` and the step that failed.
    ///
    /// `stillCurrent` is asked just before the rename, once the bytes are synced: when it answers
    /// false (the caller's lock cannot keep out a user's `mv backup prefs`, which may have come
    /// while the bytes were written), nothing is replaced and the result is `nil`.
    @discardableResult
    package static func write(
        _ data: Data, to path: String, onlyIf stillCurrent: () throws -> Bool = { true }
    ) throws -> FileIdentity? {
        let existing = try existingStatus(of: path)
        let temporaryPath =
            SystemCall.directory(of: path) + "/" + temporaryNamePrefix(for: path)
            + "\(getpid())-\(String(UInt64.random(in: .min ... .max), radix: 36))"
        let descriptor = SystemCall.retryingInterrupts {
            open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, newFileMode)
        }
        guard descriptor >= 0 else {
            throw StoreError.io(path: path, operation: "create a temporary file next to", errno: errno)
        }
        var renamed = false
        defer {
            close(descriptor)
            if !renamed { unlink(temporaryPath) }
        }
        try writeAll(data, to: descriptor, path: path)
        try setMode(of: descriptor, like: existing, path: path)
        guard SystemCall.retryingInterrupts({ SystemCall.sync(descriptor) }) == 0 else {
            throw StoreError.io(path: path, operation: "sync", errno: errno)
        }
        guard try stillCurrent() else { return nil }
        guard rename(temporaryPath, path) == 0 else {
            throw StoreError.io(path: path, operation: "replace", errno: errno)
        }
        renamed = true
        let identity = try FileIdentity.of(descriptor: descriptor, path: path)
        try syncDirectory(of: path)
        return identity
    }

    /// Removes temporary files of `path` left behind by writers that crashed; returns how many.
    ///
    /// Call it only while holding the target's ``FileLock``: a live writer holds that lock
    /// while its temporary file exists, so everything found then is debris.
    @discardableResult
    static func removeLeftoverTemporaryFiles(of path: String) -> Int {
        leftoverTemporaryFiles(of: path).reduce(0) { count, leftover in
            unlink(leftover) == 0 ? count + 1 : count
        }
    }

    /// The temporary files of `path` that are lying around, as full paths.
    static func leftoverTemporaryFiles(of path: String) -> [String] {
        let directory = SystemCall.directory(of: path)
        let prefix = temporaryNamePrefix(for: path)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(prefix) }.map { directory + "/" + $0 }
    }

    private static func existingStatus(of path: String) throws -> stat? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw StoreError.io(path: path, operation: "inspect", errno: code)
        }
        // A directory or device at the path would be replaced by the rename or refuse it;
        // say so before writing anything.
        if (status.st_mode & S_IFMT) == S_IFDIR {
            throw StoreError.io(path: path, operation: "write", errno: EISDIR)
        }
        // A FIFO or device (a link to /dev/null) would be replaced by a regular file.
        if let found = FileSystem.kind(status.st_mode) { throw StoreError.notRegularFile(path: path, found: found) }
        return status
    }

    private static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = SystemCall.writeSome(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw StoreError.io(path: path, operation: "write", errno: errno)
                }
                // A zero-byte write for a non-empty request would loop forever; treat it as an I/O error.
                guard written > 0 else { throw StoreError.io(path: path, operation: "write", errno: EIO) }
                offset += written
            }
        }
    }

    private static func setMode(of descriptor: Int32, like existing: stat?, path: String) throws {
        let mode = existing.map { $0.st_mode & 0o7777 } ?? newFileMode
        guard SystemCall.retryingInterrupts({ fchmod(descriptor, mode) }) == 0 else {
            throw StoreError.io(path: path, operation: "set the permissions of", errno: errno)
        }
        // When root rewrites a user's file it must stay the user's; for anyone else fchown
        // could only fail, and the file then simply belongs to the writer.
        if let existing, geteuid() == 0, existing.st_uid != 0 || existing.st_gid != 0 {
            _ = fchown(descriptor, existing.st_uid, existing.st_gid)
        }
    }

    private static func syncDirectory(of path: String) throws {
        let directory = SystemCall.directory(of: path)
        let descriptor = SystemCall.retryingInterrupts { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw StoreError.io(path: path, operation: "open the directory of", errno: errno)
        }
        defer { close(descriptor) }
        // Some file systems cannot sync a directory (EINVAL); the rename is then as durable as they allow.
        if SystemCall.retryingInterrupts({ SystemCall.sync(descriptor) }) != 0, errno != EINVAL {
            throw StoreError.io(path: path, operation: "sync the directory of", errno: errno)
        }
    }
}
