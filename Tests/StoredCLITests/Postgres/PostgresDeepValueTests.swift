import Foundation
import Testing

/// Values 512 levels deep (`StoredValue.maximumDepth`) through a PostgreSQL namespace with every command.
@Suite("deep values on a PostgreSQL server", .enabled(if: CLIPostgresServer.isEnabled, CLIPostgresServer.skipMessage))
struct PostgresDeepValueTests {
    @Test func aValueAtTheLimitIsImportedReadExportedAndConvertedExactly() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("deep")
        func run(_ arguments: String...) throws -> Outcome { try cli.run(arguments + ["--namespace", namespace]) }
        try cli.write(NestingAcrossFormatsTests.document(depth: 512), to: "deep.json")
        #expect(try run("import", url, cli.path("deep.json")).status == 0)
        let json = try run("export", url, "-", "--format", "json")
        #expect(json.stdout.filter { $0 == "[" }.count == 512, "\(json)")
        #expect(try run("read", url, "deep").stdout.split(separator: "\n").count == 512)
        #expect(try run("convert", url, cli.path("copy.plist"), "--format", "binary").status == 0)
        #expect(try cli.run("export", "copy.plist", "-", "--format", "json").stdout == json.stdout)
        let tooDeep = try run("write", url, "deep", NestingAcrossFormatsTests.nested(513), "--json")
        #expect(tooDeep.status == 3, "\(tooDeep)")
        #expect(try run("export", url, "-", "--format", "json").stdout == json.stdout)
        #expect(try run("check", url).status == 0)
    }

    @Test func aRowAnotherProgramFilledWithJSONTooDeepIsIntactNotDamaged() throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let url = try CLIPostgresServer.requireURL()
        let namespace = CLIPostgresServer.freshNamespace("toodeep")
        #expect(try cli.run("write", url, "deep", "[1]", "--json", "--namespace", namespace).status == 0)
        _ = try CLIPostgresServer.psql(
            url,
            "UPDATE storedkit.preferences SET json = '\(NestingAcrossFormatsTests.nested(600))' "
                + "WHERE namespace = '\(namespace)' AND key = 'deep'")
        let check = try cli.run("check", url, "--namespace", namespace)
        #expect(check.status == 3, "\(check)")
        #expect(check.errorOutput.contains("intact") && check.errorOutput.contains("'deep'"), "\(check)")
        #expect(!check.errorOutput.contains("damaged") && !check.errorOutput.contains("integrity"), "\(check)")
    }
}
