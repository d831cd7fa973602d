import Foundation
import StoredKitTestSupport
import Testing

/// Files the CLI creates are private like a store, whatever the umask; files planted where it
/// creates its own (a lock-file symlink) are refused.
@Suite("Files the CLI writes")
struct ExportPermissionTests {
    /// Runs `stored` with umask 022, the usual default that makes new files world-readable.
    static func runWithUmask022(_ cli: StoredProcess, _ arguments: String...) throws -> Outcome {
        let shell = try cli.makeProcess([])
        let binary = try StoredProcess.binary().path
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "umask 022; exec \"$0\" \"$@\"", binary] + arguments
        let errors = Pipe()
        shell.standardError = errors
        shell.standardOutput = FileHandle.nullDevice
        try shell.run(killingAfter: Process.safetyNet)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        return Outcome(status: shell.terminationStatus, output: Data(), errorOutput: message)
    }

    static func mode(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1
    }

    @Test("export writes a 0600 file under umask 022", arguments: ["backup.json", "backup.plist"], ["json", "binary"])
    func exportIsPrivate(file: String, format: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(try cli.run("write", "prefs.plist", "a", "1", "--int").status == 0)

        let outcome = try Self.runWithUmask022(cli, "export", "prefs.plist", file, "--format", format)

        #expect(outcome.status == 0, "\(outcome)")
        #expect(try Self.mode(cli.path(file)) == 0o600)
    }

    @Test("export over an existing file keeps that file's mode")
    func exportKeepsAnExistingMode() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(try cli.run("write", "prefs.plist", "a", "1", "--int").status == 0)
        try cli.write("{}", to: "shared.json")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: cli.path("shared.json"))

        #expect(try Self.runWithUmask022(cli, "export", "prefs.plist", "shared.json").status == 0)

        #expect(try Self.mode(cli.path("shared.json")) == 0o644)
        #expect(cli.bytes("shared.json").map { String(decoding: $0, as: UTF8.self) }?.contains("\"a\"") == true)
    }

    @Test("convert creates a 0600 store under umask 022", arguments: ["copy.sqlite", "copy.plist"])
    func convertIsPrivate(target: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(try cli.run("write", "prefs.sqlite", "a", "1", "--int").status == 0)

        let outcome = try Self.runWithUmask022(cli, "convert", "prefs.sqlite", "sub/dir/" + target)

        #expect(outcome.status == 0, "\(outcome)")
        #expect(try Self.mode(cli.path("sub/dir/" + target)) == 0o600)
        #expect(try Self.mode(cli.path("sub")) == 0o700)
        #expect(try Self.mode(cli.path("sub/dir")) == 0o700)
    }

    @Test("a dangling lock-file symlink is refused, naming the lock file, and its target is never created")
    func lockSymlinkIsRefused() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try FileManager.default.createDirectory(atPath: cli.path("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: cli.path("p.plist.lock"), withDestinationPath: cli.path("elsewhere/x"))

        let outcome = try cli.run("write", "p.plist", "a", "1", "--int")

        #expect(outcome.status == 5, "\(outcome)")
        #expect(outcome.errorOutput.contains(cli.path("p.plist.lock")), "\(outcome)")
        #expect(!FileManager.default.fileExists(atPath: cli.path("elsewhere/x")))
        #expect(!FileManager.default.fileExists(atPath: cli.path("p.plist")))
    }

    @Test("a FIFO where a store should be fails with status 5 naming it, instead of waiting", arguments: ["f.plist", "f.sqlite"])
    func fifoStoreIsRefused(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(mkfifo(cli.path(store), 0o600) == 0)

        let outcome = try cli.run("read", store, "a")

        #expect(outcome.status == 5, "\(outcome)")
        #expect(outcome.errorOutput.contains(cli.path(store)), "\(outcome)")
    }
}
