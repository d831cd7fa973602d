import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file operations the backends and the migration importer need besides ``AtomicFile`` and
/// ``FileLock``, each reporting failures as ``StoreError/io(path:operation:errno:)``. The SQLite
/// backend's own files are opened by SQLite; everything else it does to files goes through here.
package enum FileSystem {
    /// The bytes of the file at `path` and the identity of exactly the version that was read,
    /// or `nil` when there is no such file.
    ///
    /// A symbolic link to the file is followed (a store may live elsewhere); a FIFO or device at
    /// the path is refused with ``StoreError/notRegularFile(path:found:)`` instead of
    /// waiting forever for a writer.
    static func read(_ path: String) throws -> (data: Data, identity: FileIdentity)? {
        let descriptor = SystemCall.retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw StoreError.io(path: path, operation: "open", errno: code)
        }
        defer { close(descriptor) }
        try requireRegularFile(descriptor, path: path)
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

    /// Up to `count` bytes from the start of the regular file at `path` (a format sniff), or empty
    /// data when there is no such file or it cannot be read. A FIFO or device is never opened for
    /// long: opening one for reading would wait for a writer.
    ///
    /// ```swift
    /// FileSystem.firstBytes(of: "/home/me/.config/app.plist", count: 8)  //=> "bplist00" (as Data)
    /// ```
    package static func firstBytes(of path: String, count: Int) -> Data {
        let descriptor = SystemCall.retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else { return Data() }
        defer { close(descriptor) }
        guard (try? requireRegularFile(descriptor, path: path)) != nil else { return Data() }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return SystemCall.readSome(descriptor, base + filled, count - filled)
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { break }
            filled += read
        }
        return Data(bytes[..<filled])
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

    /// Renames `path` to the first free name among `base`, `base-2`, `base-3`, … and returns it;
    /// each of `companions` that exists (`path + suffix`, such as SQLite's `-wal` and `-shm`)
    /// moves along to the new name plus the same suffix.
    ///
    /// Every name is claimed first with an exclusive create, so two processes moving files aside
    /// at the same second never overwrite each other's copy. The companions move first: a crash
    /// half-way leaves the file where it was, never a stale log beside a new file of the same name.
    /// When `path` itself is gone (another process moved it aside first) this throws
    /// ``StoreError/io(path:operation:errno:)`` with `ENOENT`.
    static func moveAside(_ path: String, companions: [String] = [], toNameBasedOn base: String) throws -> String {
        let present = companions.filter { suffix in
            var status = stat()
            return lstat(path + suffix, &status) == 0
        }
        for attempt in 1...1000 {
            let candidate = attempt == 1 ? base : "\(base)-\(attempt)"
            var claimed: [String] = []
            for name in [candidate] + present.map({ candidate + $0 }) {
                guard try claim(name, movingAside: path) else { break }
                claimed.append(name)
            }
            guard claimed.count == present.count + 1 else {
                claimed.forEach { unlink($0) }
                continue
            }
            for suffix in present where rename(path + suffix, candidate + suffix) != 0 {
                // A companion that vanished meanwhile was its owner's to remove; its claim goes.
                unlink(candidate + suffix)
            }
            guard rename(path, candidate) == 0 else {
                let code = errno
                unlink(candidate)
                throw StoreError.io(path: path, operation: "move aside", errno: code)
            }
            return candidate
        }
        throw StoreError.io(path: path, operation: "move aside (no free name)", errno: EEXIST)
    }

    /// Creates `name` exclusively as a placeholder; false when something already has that name.
    private static func claim(_ name: String, movingAside path: String) throws -> Bool {
        let placeholder = SystemCall.retryingInterrupts {
            open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(0o600))
        }
        guard placeholder >= 0 else {
            if errno == EEXIST { return false }
            throw StoreError.io(path: path, operation: "move aside", errno: errno)
        }
        close(placeholder)
        return true
    }

    /// Creates an empty file at `path`, readable and writable by its owner only, unless something
    /// already has that name (which is left alone, whatever it is); returns whether it created one.
    @discardableResult
    static func createPrivateFile(_ path: String) throws -> Bool {
        let descriptor = SystemCall.retryingInterrupts {
            open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, AtomicFile.newFileMode)
        }
        guard descriptor >= 0 else {
            if errno == EEXIST { return false }
            throw StoreError.io(path: path, operation: "create", errno: errno)
        }
        close(descriptor)
        return true
    }

    /// Flushes the file at `path` to disk; a missing file has nothing to flush.
    static func sync(_ path: String) throws {
        let descriptor = SystemCall.retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard descriptor >= 0 else {
            if errno == ENOENT { return }
            throw StoreError.io(path: path, operation: "open for sync", errno: errno)
        }
        defer { close(descriptor) }
        guard SystemCall.retryingInterrupts({ SystemCall.sync(descriptor) }) == 0 else {
            throw StoreError.io(path: path, operation: "sync", errno: errno)
        }
    }

    /// Removes the file at `path`; a file that is already gone is fine.
    static func remove(_ path: String, operation: String = "remove") throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw StoreError.io(path: path, operation: operation, errno: errno)
        }
    }

    /// Why a new file cannot be created in `directory` (its `errno`: `EACCES`, `ENOENT`, …), or
    /// `nil` when it can.
    static func reasonFilesCannotBeCreated(in directory: String) -> Int32? {
        access(directory, W_OK | X_OK) == 0 ? nil : errno
    }

    /// What is at `path` when it is something other than a regular file or a directory, in words
    /// ("a symbolic link", "a FIFO"); `nil` otherwise or for nothing. Links are not followed.
    static func nonRegularFileKind(at path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return kind(status.st_mode)
    }

    /// Throws ``StoreError/notRegularFile(path:found:)`` when what `path` names, links followed, is
    /// a FIFO, device or socket; nothing at the path is fine. For files another library opens.
    static func requireRegularFileIfPresent(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        if let found = kind(status.st_mode) { throw StoreError.notRegularFile(path: path, found: found) }
    }

    /// Throws ``StoreError/notRegularFile(path:found:)`` unless `descriptor` is a regular file (or a directory).
    static func requireRegularFile(_ descriptor: Int32, path: String) throws {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw StoreError.io(path: path, operation: "inspect", errno: errno) }
        if let found = kind(status.st_mode) { throw StoreError.notRegularFile(path: path, found: found) }
    }

    /// Directories count as regular here: they already fail as `EISDIR`, whose advice fits.
    static func kind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG, S_IFDIR: nil
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a regular file"
        }
    }

    /// Whether the file at `path` belongs to the (non-root) user running this process or can be
    /// written by its group or anyone: then its values are not an administrator's alone.
    static func isWritableByOthersOrOwned(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let uid = getuid()
        return (uid != 0 && status.st_uid == uid) || status.st_mode & (S_IWGRP | S_IWOTH) != 0
    }

    /// `path` with every symbolic link resolved, or `path` itself when it cannot be resolved.
    static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The nearest existing directory above `path`, with the name of its child on the way to
    /// `path`: where to wait for a directory that does not exist yet.
    static func nearestExistingAncestor(of path: String) -> (directory: String, child: String)? {
        var child = path
        var parent = SystemCall.directory(of: path)
        while !FileManager.default.fileExists(atPath: parent) {
            guard parent != "/", parent != "." else { return nil }
            child = parent
            parent = SystemCall.directory(of: parent)
        }
        return (parent, SystemCall.fileName(of: child))
    }

    /// The directories and names to watch to see every change of the file at `path`: its own name;
    /// when it is a symbolic link to a relative path, that path's first component too (a mounted
    /// ConfigMap's `name -> ..data/name` changes by renaming `..data`); and the name of the file it
    /// finally resolves to, in that file's directory (an in-place edit of the target).
    static func namesToWatch(for path: String) -> [String: Set<String>] {
        let (directory, name) = (SystemCall.directory(of: path), SystemCall.fileName(of: path))
        var names: [String: Set<String>] = [directory: [name]]
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path), !target.hasPrefix("/"),
            let first = target.split(separator: "/").first
        {
            names[directory, default: []].insert(String(first))
        }
        let resolved = resolvedPath(path)
        if resolved != path {
            names[SystemCall.directory(of: resolved), default: []].insert(SystemCall.fileName(of: resolved))
        }
        return names
    }
}
