import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension TemporaryDirectory {
    /// Runs `body` with file permissions enforced as they are for an app's user, also when the
    /// tests run as root (as CI does), who would otherwise write into any directory and make a
    /// test of an unwritable one prove nothing. Not root: `body` simply runs. Root: the directory
    /// and its entries are given to `nobody`, and `body` runs with `nobody`'s file-system identity.
    ///
    /// ```swift
    /// try directory.withPermissionsEnforced {
    ///     chmod(directory.path, 0o500)
    ///     try AtomicFile.write(data, to: directory.file("prefs.plist").path)  //=> throws StoreError.io(…, errno: EACCES)
    /// }
    /// ```
    ///
    /// Linux keeps the file-system user (`setfsuid(2)`) per thread, and moving it off 0 drops the
    /// capabilities that override permission bits for that thread alone; moving it back restores
    /// them. So nothing else in the process is affected, and only what `body` does on this thread
    /// is checked: keep it synchronous. `access(2)` checks the real user and still answers for root.
    public func withPermissionsEnforced<T>(_ body: () throws -> T) throws -> T {
        guard geteuid() == 0 else { return try body() }
        let nobody = getpwnam("nobody")
        let user = nobody?.pointee.pw_uid ?? 65534
        let group = nobody?.pointee.pw_gid ?? 65534
        for entry in [path] + (try names()).map({ file($0).path }) where chown(entry, user, group) != 0 {
            throw PermissionsNotEnforced("could not give \(entry) to nobody: errno \(errno)")
        }
        guard let setfsuid = fileSystemIdentitySetter("setfsuid"), let setfsgid = fileSystemIdentitySetter("setfsgid") else {
            throw PermissionsNotEnforced("this C library has no setfsuid")
        }
        let previousGroup = setfsgid(group)
        let previousUser = setfsuid(user)
        defer {
            _ = setfsuid(uid_t(bitPattern: previousUser))
            _ = setfsgid(gid_t(bitPattern: previousGroup))
        }
        // An invalid ID changes nothing and returns the one in effect.
        guard setfsuid(uid_t.max) == Int32(bitPattern: user) else {
            throw PermissionsNotEnforced("setfsuid(\(user)) did not take effect")
        }
        return try body()
    }
}

/// glibc's `setfsuid` or `setfsgid`, looked up at run time: their header, <sys/fsuid.h>, is not part
/// of Swift's Glibc module.
private func fileSystemIdentitySetter(_ name: String) -> (@convention(c) (UInt32) -> Int32)? {
    // RTLD_DEFAULT (a null handle): the symbol wherever the process has it.
    dlsym(nil, name).map { unsafeBitCast($0, to: (@convention(c) (UInt32) -> Int32).self) }
}

/// Root could not take on an ordinary user's identity: a test that needs permissions enforced
/// fails with this rather than pass without them.
///
/// ```swift
/// PermissionsNotEnforced("setfsuid(65534) did not take effect").description  //=> "permissions not enforced: setfsuid(65534) did not take effect"
/// ```
public struct PermissionsNotEnforced: Error, CustomStringConvertible {
    /// What went wrong, for the test's failure message.
    ///
    /// ```swift
    /// error.description  //=> "permissions not enforced: …"
    /// ```
    public let description: String

    init(_ reason: String) { description = "permissions not enforced: " + reason }
}
