import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The FILE of `export` and `import`: standard output or input (`-`), a regular file, or a stream
/// such as a FIFO, `/dev/stdin`, a process substitution `<(…)` or a character device like
/// `/dev/null`, which is read or written in place, as a shell's `<` and `>` would, and never replaced.
///
/// ```swift
/// try FileArgument("backup.json")  //=> .regularFile("backup.json") (or nothing there yet)
/// try FileArgument("/dev/null")    //=> .stream("/dev/null")
/// ```
enum FileArgument: Equatable {
    case standardStream
    case regularFile(String)
    case stream(String)

    /// Throws when `path` (links followed) is a kind nothing can be exported to or imported from in
    /// place: a socket, a block device (a disk), or a directory.
    init(_ path: String) throws(CLIError) {
        guard path != "-" else { self = .standardStream; return }
        var status = stat()
        guard stat(path, &status) == 0 else { self = .regularFile(path); return }
        switch status.st_mode & S_IFMT {
        case S_IFREG: self = .regularFile(path)
        case S_IFIFO, S_IFCHR: self = .stream(path)
        case let kind:
            let name =
                switch kind {
                case S_IFDIR: "a directory"
                case S_IFSOCK: "a socket"
                case S_IFBLK: "a block device"
                default: "not a regular file"
                }
            throw CLIError(
                .inputOutput,
                "'\(path)' is \(name), not a regular file, a FIFO or a character device; it was left unchanged. Choose a file path or '-'."
            )
        }
    }

    /// Writes `data` to the stream at `path` from its start, as `> path` would, without replacing it.
    /// Opening a FIFO waits for its reader.
    static func write(_ data: Data, toStream path: String) throws(CLIError) {
        let descriptor = retrying { open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY) }
        guard descriptor >= 0 else { throw failure(errno, "open", path) }
        defer { close(descriptor) }
        let code: Int32? = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return written < 0 ? errno : EIO }
                offset += written
            }
            return nil
        }
        if let code { throw failure(code, "write", path) }
    }

    /// Every byte of the file or stream at `path`, read to its end.
    static func readAll(_ path: String) throws(CLIError) -> Data {
        let descriptor = retrying { open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) }
        guard descriptor >= 0 else { throw failure(errno, "read", path) }
        defer { close(descriptor) }
        var data = Data()
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = read(descriptor, chunk, 64 * 1024)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure(errno, "read", path) }
            if count == 0 { return data }
            data.append(chunk.assumingMemoryBound(to: UInt8.self), count: count)
        }
    }

    private static func retrying(_ call: () -> Int32) -> Int32 {
        var result: Int32
        repeat { result = call() } while result < 0 && errno == EINTR
        return result
    }

    private static func failure(_ code: Int32, _ operation: String, _ path: String) -> CLIError {
        CLIError(.inputOutput, "Could not \(operation) '\(path)': \(String(cString: strerror(code))). Check the path.")
    }
}
