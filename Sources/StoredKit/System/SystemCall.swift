#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small helpers shared by the file layer.
enum SystemCall {
    /// Repeats a system call that a signal interrupted (`EINTR`); returns its last result.
    /// On failure `errno` still holds the call's error when this returns.
    static func retryingInterrupts<Value: BinaryInteger>(_ call: () -> Value) -> Value {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    /// One `write(2)`, reachable from types that have a `write` method of their own.
    static func writeSome(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        if let faults = FileFaults.active { return faults.write(descriptor, bytes, count) }
        return write(descriptor, bytes, count)
    }

    /// `write(2)` itself, for ``FileFaults``.
    static func unfaultedWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        write(descriptor, bytes, count)
    }

    /// One `fsync(2)` (or the injected failure of ``FileFaults``).
    static func sync(_ descriptor: Int32) -> Int32 {
        if let faults = FileFaults.active { return faults.sync(descriptor) }
        return fsync(descriptor)
    }

    /// One `read(2)`, reachable from types that have a `read` method of their own.
    static func readSome(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        read(descriptor, buffer, count)
    }

    /// The directory part of `path` (`"."` when there is none).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`.
    static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
