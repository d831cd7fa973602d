import Foundation
import Testing

@testable import StoredKit

#if canImport(Glibc)
    import Glibc
#endif

@Suite("AtomicFile")
struct AtomicFileTests {
    @Test func writesNewFileWithOwnerOnlyModeAndLeavesNoTemporaryFile() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.file("prefs.plist").path

        let identity = try AtomicFile.write(Data("hello".utf8), to: path)

        #expect(try Data(contentsOf: scratch.file("prefs.plist")) == Data("hello".utf8))
        #expect(try TemporaryDirectory.mode(of: path) == 0o600)
        #expect(try scratch.names() == ["prefs.plist"])
        #expect(try FileIdentity.of(path: path) == identity)
    }

    @Test func keepsTheModeOfAnExistingFile() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.file("prefs.plist").path
        try AtomicFile.write(Data("one".utf8), to: path)
        chmod(path, 0o644)

        try AtomicFile.write(Data("two".utf8), to: path)

        #expect(try TemporaryDirectory.mode(of: path) == 0o644)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two")
    }

    @Test func replacesTheFileInsteadOfRewritingItInPlace() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.file("prefs.plist").path
        try AtomicFile.write(Data("old".utf8), to: path)
        // A hard link keeps the old inode reachable: an in-place write would change its bytes too.
        let oldInode = scratch.file("old-inode").path
        #expect(link(path, oldInode) == 0)

        try AtomicFile.write(Data("new".utf8), to: path)

        #expect(try String(contentsOfFile: oldInode, encoding: .utf8) == "old")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
    }

    @Test func writesLargeContentsCompletely() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.file("big").path
        let bytes = Data((0..<(3 * 1024 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31) })

        try AtomicFile.write(bytes, to: path)

        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func refusesADirectoryAtThePathNamingPathAndErrno() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.file("prefs.plist").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)

        let error = try #require(throws: StoreError.self) { try AtomicFile.write(Data("x".utf8), to: path) }

        guard case .io(let failedPath, _, let code) = error else { Issue.record("unexpected \(error)"); return }
        #expect(failedPath == path)
        #expect(code == EISDIR)
        #expect(try scratch.names() == ["prefs.plist"])
    }

    @Test("a FIFO, or a link to a character device, at the target is refused and left in place", arguments: ["fifo", "device"])
    func refusesAFIFOOrDevice(kind: String) throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.file("out.json").path
        if kind == "fifo" {
            #expect(mkfifo(path, 0o600) == 0)
        } else {
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/null")
        }

        let error = try #require(throws: StoreError.self) { try AtomicFile.write(Data("x".utf8), to: path) }

        guard case .notRegularFile(let failedPath, let found) = error else { Issue.record("unexpected \(error)"); return }
        #expect(failedPath == path)
        #expect(found == (kind == "fifo" ? "a FIFO" : "a device"))
        var status = stat()
        #expect(lstat(path, &status) == 0 && status.st_mode & S_IFMT == (kind == "fifo" ? S_IFIFO : S_IFLNK))
        #expect(try scratch.names() == ["out.json"])
    }

    @Test func missingDirectoryFailsWithTypedError() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.file("missing/prefs.plist").path

        let error = try #require(throws: StoreError.self) { try AtomicFile.write(Data("x".utf8), to: path) }

        guard case .io(let failedPath, let operation, let code) = error else { Issue.record("unexpected \(error)"); return }
        #expect(failedPath == path)
        #expect(operation == "create a temporary file next to")
        #expect(code == ENOENT)
    }

    /// Runs as root too (CI): see ``TemporaryDirectory/withPermissionsEnforced(_:)``.
    @Test func unwritableDirectoryKeepsThePreviousFile() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.file("prefs.plist").path
        try AtomicFile.write(Data("old".utf8), to: path)
        try scratch.withPermissionsEnforced {
            chmod(scratch.path, 0o500)

            let error = try #require(throws: StoreError.self) { try AtomicFile.write(Data("new".utf8), to: path) }

            guard case .io(let failedPath, _, let code) = error else { Issue.record("unexpected \(error)"); return }
            #expect(failedPath == path)
            #expect(code == EACCES)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        }
    }

    @Test func removesOnlyThisTargetsLeftoverTemporaryFiles() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let path = scratch.file("prefs.plist").path
        try AtomicFile.write(Data("keep".utf8), to: path)
        for name in [".prefs.plist.tmp-1-abc", ".prefs.plist.tmp-99-zz", ".other.plist.tmp-1-abc", "prefs.plist.tmp"] {
            #expect(FileManager.default.createFile(atPath: scratch.file(name).path, contents: Data("debris".utf8)))
        }

        #expect(AtomicFile.removeLeftoverTemporaryFiles(of: path) == 2)

        #expect(try scratch.names() == [".other.plist.tmp-1-abc", "prefs.plist", "prefs.plist.tmp"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep")
    }
}
