import Foundation
import Testing

/// Layers around a PostgreSQL namespace: a forced file on this machine over the server's values.
@Suite("stored layers on a PostgreSQL server", .enabled(if: CLIPostgresServer.isEnabled, CLIPostgresServer.skipMessage))
struct PostgresLayerTests {
    @Test func aForcedFileOverANamespace() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("layers")
        func run(_ arguments: String..., input: Data? = nil) throws -> Outcome {
            try cli.run(arguments + ["--namespace", namespace, "--forced", "forced.plist"], input: input)
        }
        try cli.run("write", "forced.plist", "volume", "0.3", "--double")
        #expect(try cli.run("write", url, "volume", "0.8", "--double", "--namespace", namespace).status == 0)
        #expect(try cli.run("write", url, "name", "Ada", "--namespace", namespace).status == 0)
        let read = try run("read", url, "--source")
        let shown = try #require(read.lines.first { $0.hasPrefix("user:") }, "\(read)")
        #expect(shown.hasSuffix("(namespace \(namespace))\tname: \"Ada\""), "\(read)")
        #expect(!shown.contains("Pa55"))
        #expect(read.lines.contains("forced:\(cli.path("forced.plist"))\tvolume: 0.3"), "\(read)")
        #expect(try run("read", url, "volume", "--user").stdout == "0.8\n")
        let layers = try run("layers", url)
        #expect(layers.lines.map { $0.split(separator: " ").first } == ["forced", "user"], "\(layers)")
        #expect(layers.lines.last?.contains("exists") == true, "\(layers)")
        let refused = try run("write", url, "volume", "0.9", "--double")
        #expect(refused.status == 7, "\(refused)")
        #expect(refused.errorOutput.contains(cli.path("forced.plist")), "\(refused)")
        let skipped = try run("import", url, "-", "--skip-forced", input: Data(#"{"volume": 1.0, "name": "Bo"}"#.utf8))
        #expect(skipped.status == 0, "\(skipped)")
        #expect(skipped.errorOutput.contains("skipped key 'volume'"), "\(skipped)")
        #expect(try run("read", url, "--user").lines == ["name: \"Bo\"", "volume: 0.8"])
    }
}
