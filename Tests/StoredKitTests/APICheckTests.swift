import Foundation
import StoredKitTestSupport
import Testing

/// `make api-check` fails on a break of the public API that CHANGELOG.md does not announce. The
/// digester's run needs the release's build, so these tests check the part that decides: which of
/// its reported breaks the changelog's [Unreleased] section names.
@Suite("The API check fails on an unannounced break")
struct APICheckTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Scripts/api-check.sh").path

    static let digesterOutput = """
        2 breaking changes detected in StoredKit:
          💔 API breakage: func AnyBackend.postgres(url:namespace:) has been removed
          💔 API breakage: enumelement StoreEvent.forced has been added as a new enum case

        """

    /// Runs the script's matching on `digesterOutput` against a changelog holding `changelog`.
    func match(changelog: String) throws -> (status: Int32, output: String) {
        let directory = try TemporaryDirectory()
        let log = directory.file("digester.log")
        let changelogFile = directory.file("CHANGELOG.md")
        try Self.digesterOutput.write(to: log, atomically: true, encoding: .utf8)
        try changelog.write(to: changelogFile, atomically: true, encoding: .utf8)
        return try ExternalCommand.run(
            "/bin/bash",
            ["-c", "CHANGELOG=\"$1\" /bin/bash \"$0\" --match \"$2\" 2>&1", Self.script, changelogFile.path, log.path])
    }

    @Test func everyBreakNamedInUnreleasedPasses() throws {
        let (status, output) = try match(
            changelog: """
                # Changelog
                ## [Unreleased]
                ### Changed
                - `AnyBackend.postgres(url:namespace:)` moved to StoredKitPostgres: add `import StoredKitPostgres`.
                - New case `StoreEvent.forced(key:)`.
                ## [0.9.0] - 2026-12-03
                """)
        #expect(status == 0, "\(output)")
    }

    @Test func aBreakNamedNowhereFailsAndIsShown() throws {
        let (status, output) = try match(
            changelog: """
                ## [Unreleased]
                - `AnyBackend.postgres(url:namespace:)` moved to StoredKitPostgres.
                ## [0.9.0] - 2026-12-03
                """)
        #expect(status == 1)
        #expect(output.contains("enumelement StoreEvent.forced has been added"), "\(output)")
        #expect(!output.contains("AnyBackend.postgres"), "an announced break is not reported: \(output)")
    }

    @Test func aBreakNamedOnlyInAnOlderReleaseOrAsAPrefixIsUnannounced() throws {
        let (status, output) = try match(
            changelog: """
                ## [Unreleased]
                - `StoreEvent.forcedWriteRefused(key:source:)` is new.
                ## [0.9.0] - 2026-12-03
                - `AnyBackend.postgres(url:namespace:)` was added.
                """)
        #expect(status == 1)
        #expect(output.contains("AnyBackend.postgres(url:namespace:) has been removed"), "\(output)")
        #expect(output.contains("StoreEvent.forced has been added"), "\(output)")
    }
}
