import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few file operations the plist backend needs besides ``AtomicFile`` and ``FileLock``,
/// each reporting failures as ``StoreError/io(path:operation:errno:)``.
enum FileSystem {
    /// The bytes of the file at `path` and the identity of exactly the version that was read,
    /// or `nil` when there is no such file.
    static func read(_ path: String) throws -> (data: Data, identity: FileIdentity)? {
        let descriptor = SystemCall.retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw StoreError.io(path: path, operation: "open", errno: code)
        }
        defer { close(descriptor) }
        let identity = try FileIdentity.of(descriptor: descriptor, path: path)
        var data = Data(capacity: Int(max(identity.size, 0)))
        let chunkSize = 64 * 1024
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = SystemCall.readSome(descriptor, chunk, chunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError.io(path: path, operation: "read", errno: errno)
            }
            if count == 0 { break }
            data.append(chunk.assumingMemoryBound(to: UInt8.self), count: count)
        }
        return (data, identity)
    }

    /// Creates `path` and any missing parents with `mode`; existing directories are left as they are.
    static func createDirectories(_ path: String, mode: mode_t = 0o700) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) != 0, errno != EEXIST {
                throw StoreError.io(path: current, operation: "create the directory", errno: errno)
            }
        }
    }

    /// Renames `path` to the first free name among `base`, `base-2`, `base-3`, … and returns it.
    ///
    /// The name is claimed first with an exclusive create, so two processes moving files aside
    /// at the same second never overwrite each other's copy.
    static func moveAside(_ path: String, toNameBasedOn base: String) throws -> String {
        for attempt in 1...1000 {
            let candidate = attempt == 1 ? base : "\(base)-\(attempt)"
            let placeholder = SystemCall.retryingInterrupts {
                open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(0o600))
            }
            if placeholder < 0 {
                if errno == EEXIST { continue }
                throw StoreError.io(path: path, operation: "move aside", errno: errno)
            }
            close(placeholder)
            guard rename(path, candidate) == 0 else {
                let code = errno
                unlink(candidate)
                throw StoreError.io(path: path, operation: "move aside", errno: code)
            }
            return candidate
        }
        throw StoreError.io(path: path, operation: "move aside (no free name)", errno: EEXIST)
    }
}
