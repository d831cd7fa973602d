import Foundation
import StoredKitTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `export` and `import` on what is not a regular file: a FIFO, a character device, a socket, a pipe.
/// An export streams into a FIFO or a device as into `-` and never replaces it; an import reads a
/// pipe to its end.
@Suite("export onto and import from special files")
struct SpecialFileTests {
    @Test("export into a FIFO writes the export to its reader and leaves the FIFO in place", arguments: storeNames)
    func exportIntoFIFO(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(try cli.run("write", store, "a", "1", "--int").status == 0)
        let fifo = cli.path("out.json")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The read end is open before the export starts, so its open for writing does not wait,
        // and the bytes wait in the pipe until the export has ended.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }

        let outcome = try cli.run("export", store, "out.json")

        #expect(outcome.status == 0, "\(outcome)")
        #expect(Self.kind(fifo) == S_IFIFO, "the FIFO was replaced")
        let received = Self.readAvailable(reader)
        #expect(received == (try cli.run("export", store).output))
    }

    @Test("export through a link to a character device writes into the device and keeps the link")
    func exportIntoCharacterDevice() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(try cli.run("write", "prefs.plist", "a", "1", "--int").status == 0)
        // Not /dev/null itself: a link to it is all a failing test can replace.
        try FileManager.default.createSymbolicLink(atPath: cli.path("null.json"), withDestinationPath: "/dev/null")

        for format in ["json", "xml", "binary"] {
            let outcome = try cli.run("export", "prefs.plist", "null.json", "--format", format)
            #expect(outcome.status == 0, "\(outcome)")
        }

        #expect(Self.kind(cli.path("null.json")) == S_IFLNK, "the link was replaced")
        #expect(Self.kind("/dev/null") == S_IFCHR)
    }

    @Test("export onto a socket is refused by name and kind, and the socket stays")
    func exportOntoSocket() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(try cli.run("write", "prefs.plist", "a", "1", "--int").status == 0)
        let socketPath = cli.path("out.json")
        let descriptor = try Self.bindUnixSocket(at: socketPath)
        defer { close(descriptor) }

        let outcome = try cli.run("export", "prefs.plist", "out.json")

        #expect(outcome.status == 5, "\(outcome)")
        #expect(outcome.errorOutput.contains("out.json"), "\(outcome)")
        #expect(outcome.errorOutput.contains("a socket"), "\(outcome)")
        #expect(Self.kind(socketPath) == S_IFSOCK, "the socket was replaced")
    }

    @Test(
        "import reads a pipe given as /dev/stdin or as a process substitution",
        arguments: storeNames, ["/dev/stdin", "substitution"])
    func importFromPipe(store: String, form: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let binary = try StoredProcess.binary().path
        let script =
            form == "/dev/stdin"
            ? #"printf '{"a":1}' | "$0" import "$1" /dev/stdin"# : #""$0" import "$1" <(printf '{"a":1}')"#
        let shell = try cli.makeProcess([])
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = ["-c", script, binary, store]
        let errors = Pipe()
        shell.standardError = errors
        try shell.run(killingAfter: Process.safetyNet)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()

        #expect(shell.terminationStatus == 0, "\(message)")
        let read = try cli.run("read", store, "a")
        #expect(read.stdout == "1\n", "\(read)")
    }

    @Test("import from a directory fails naming it, with status 5")
    func importFromDirectory() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try FileManager.default.createDirectory(atPath: cli.path("dir"), withIntermediateDirectories: false)

        let outcome = try cli.run("import", "prefs.sqlite", "dir")

        #expect(outcome.status == 5, "\(outcome)")
        #expect(outcome.errorOutput.contains("'dir'") && outcome.errorOutput.contains("directory"), "\(outcome)")
    }

    static func kind(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    /// Everything the pipe holds now; the writer has already closed its end.
    static func readAvailable(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    static func bindUnixSocket(at path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        return descriptor
    }
}
