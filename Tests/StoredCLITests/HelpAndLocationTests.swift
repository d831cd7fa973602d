import Foundation
import Testing

@Suite("help and STORE arguments")
struct HelpAndLocationTests {
    @Test("help lists every command and the exit statuses")
    func overview() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let help = try cli.run("help")
        #expect(help.status == 0)
        for command in [
            "read", "read-type", "write", "delete", "rename", "keys", "find", "layers", "export", "import", "watch", "info",
            "check", "convert",
        ] {
            #expect(help.lines.contains { $0.hasPrefix("  \(command) ") }, "\(command)")
        }
        for status in ["0  success", "1  key not found", "2  usage error", "3  invalid value", "4  corrupt store", "5  I/O"] {
            #expect(help.stdout.contains(status), "\(status)")
        }
    }

    @Test("help COMMAND and COMMAND --help show its options and examples")
    func commandHelp() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let help = try cli.run("help", "write")
        #expect(help.status == 0)
        #expect(help.lines.first == "Usage: stored write STORE KEY VALUE [options]")
        for option in ["--string", "--int", "--double", "--bool", "--date", "--data", "--json"] {
            #expect(help.stdout.contains("  \(option) "), "\(option)")
        }
        #expect(try cli.run("write", "--help").stdout == help.stdout)
        let unknown = try cli.run("help", "frobnicate")
        #expect(unknown.status == 2)
        #expect(unknown.errorOutput.contains("'frobnicate'"))
        #expect(try cli.run().status == 2)
    }

    @Test("a suite name is $XDG_CONFIG_HOME/NAME.plist")
    func suiteName() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(try cli.run("write", "com.example.app", "volume", "0.5", "--double").status == 0)
        let file = try #require(cli.bytes("com.example.app.plist"))
        #expect(String(decoding: file, as: UTF8.self).contains("<real>0.5</real>"))
        #expect(try cli.run("read", "com.example.app", "volume").stdout == "0.5\n")
        #expect(try cli.run("info", "com.example.app").lines.contains("path:           \(cli.path("com.example.app.plist"))"))
    }

    @Test("a path without a known extension is detected by content")
    func detectionByContent() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", "real.sqlite", "a", "1", "--int")
        try FileManager.default.copyItem(atPath: cli.path("real.sqlite"), toPath: cli.path("mystery.data"))
        #expect(try cli.run("info", "./mystery.data", "--json").stdout.contains(#""backend":"sqlite""#))
        #expect(try cli.run("read", "./mystery.data", "a").stdout == "1\n")
        #expect(try cli.run("write", "./fresh.conf", "b", "2", "--int").status == 0)
        #expect(cli.bytes("fresh.conf")?.starts(with: Data("<?xml".utf8)) == true)
    }
}
