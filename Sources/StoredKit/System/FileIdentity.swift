#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which version of a file is on disk, as far as `stat` can tell: device, inode, size and
/// the modification and status-change times in nanoseconds.
///
/// Every atomic replace creates a new inode and a new change time, so two versions of a
/// store file do not share an identity in practice; comparing identities is how a backend
/// learns, without reading the file, that someone else wrote it.
package struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64
    var changedSeconds: Int64
    var changedNanoseconds: Int64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        #if canImport(Darwin)
            modifiedSeconds = Int64(status.st_mtimespec.tv_sec)
            modifiedNanoseconds = Int64(status.st_mtimespec.tv_nsec)
            changedSeconds = Int64(status.st_ctimespec.tv_sec)
            changedNanoseconds = Int64(status.st_ctimespec.tv_nsec)
        #else
            modifiedSeconds = Int64(status.st_mtim.tv_sec)
            modifiedNanoseconds = Int64(status.st_mtim.tv_nsec)
            changedSeconds = Int64(status.st_ctim.tv_sec)
            changedNanoseconds = Int64(status.st_ctim.tv_nsec)
        #endif
    }

    /// Whether both name the same file (device and inode), whichever version of it; two missing
    /// files are the same too. A file replaced by a rename or deleted is not the same file.
    static func sameFile(_ first: FileIdentity?, _ second: FileIdentity?) -> Bool {
        first?.device == second?.device && first?.inode == second?.inode
    }

    /// The identity of the file at `path`, or `nil` when there is no such file.
    static func of(path: String) throws -> FileIdentity? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw StoreError.io(path: path, operation: "inspect", errno: code)
        }
        return FileIdentity(status)
    }

    /// The identity of an open file, which stays right even if its path is replaced meanwhile.
    static func of(descriptor: Int32, path: String) throws -> FileIdentity {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw StoreError.io(path: path, operation: "inspect", errno: errno)
        }
        return FileIdentity(status)
    }
}
