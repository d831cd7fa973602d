import Foundation
import StoredKitTestSupport
import Testing

/// A program that imports only StoredKit builds without libpq's pkg-config file and links no
/// database client: a tiny consumer package (a path dependency on this checkout, a plist and an
/// SQLite store) is built with `PKG_CONFIG_LIBDIR` holding only a copy of `sqlite3.pc`, its build
/// log must not mention CStoredPostgres, and `ldd` of its binary must list none of libpq, libssl,
/// libkrb5, libgssapi, libldap. The package and its build stay in `.build/consumer-package`, so
/// only the first run builds StoredKit (a few minutes); later runs rebuild what changed.
@Suite("A program that imports only StoredKit links no database client")
struct ConsumerPackageTests {
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(.timeLimit(.minutes(15))) func itBuildsWithSQLitesPackageAloneAndLinksNoLibpq() throws {
        let root = Self.checkout.appendingPathComponent(".build/consumer-package")
        let package = root.appendingPathComponent("Consumer")
        let onlySQLite = root.appendingPathComponent("pkgconfig")
        try writeConsumer(at: package)
        try FileManager.default.createDirectory(at: onlySQLite, withIntermediateDirectories: true)
        let sqliteFolder = try ExternalCommand.run("/usr/bin/env", ["pkg-config", "--variable", "pcfiledir", "sqlite3"])
        let sqlitePC = sqliteFolder.output.trimmingCharacters(in: .whitespacesAndNewlines) + "/sqlite3.pc"
        try? FileManager.default.removeItem(at: onlySQLite.appendingPathComponent("sqlite3.pc"))
        try FileManager.default.copyItem(atPath: sqlitePC, toPath: onlySQLite.appendingPathComponent("sqlite3.pc").path)

        let build = try ExternalCommand.run(
            "/bin/sh",
            [
                "-c", "cd \"$1\" && PKG_CONFIG_LIBDIR=\"$2\" swift build --scratch-path \"$3\" 2>&1", "sh", package.path,
                onlySQLite.path, root.appendingPathComponent("scratch").path,
            ])
        #expect(build.status == 0, "\(build.output)")
        #expect(!build.output.contains("CStoredPostgres"), "\(build.output)")
        #expect(!build.output.contains("libpq"), "\(build.output)")

        let binary = root.appendingPathComponent("scratch/debug/consumer").path
        let folder = try TemporaryDirectory()
        let run = try ExternalCommand.run(binary, [folder.url.path])
        #expect(run.status == 0)
        #expect(run.output == "1 Ada\n", "the consumer's plist and SQLite stores work")

        let libraries = try ExternalCommand.run("/usr/bin/ldd", [binary]).output
        #expect(libraries.contains("libsqlite3"), "\(libraries)")
        for client in ["libpq", "libssl", "libkrb5", "libgssapi", "libldap"] {
            #expect(!libraries.contains(client), "\(client) is linked:\n\(libraries)")
        }
    }

    /// The consumer package, rewritten only when it differs, so a re-run builds nothing new.
    private func writeConsumer(at package: URL) throws {
        let manifest = """
            // swift-tools-version: 6.0
            import PackageDescription

            let package = Package(
                name: "Consumer",
                platforms: [.macOS(.v15)],
                dependencies: [.package(path: "\(Self.checkout.path)")],
                targets: [
                    .executableTarget(
                        name: "consumer",
                        dependencies: [.product(name: "StoredKit", package: "\(Self.checkout.lastPathComponent)")])
                ]
            )

            """
        let main = """
            import Foundation
            import StoredKit

            let folder = URL(fileURLWithPath: CommandLine.arguments[1])
            let plist = try PreferenceStore(.plist(at: folder.appendingPathComponent("prefs.plist")))
            plist.set(1, forKey: "launches")
            try plist.flush()
            let sqlite = try PreferenceStore(.sqlite(at: folder.appendingPathComponent("prefs.sqlite")))
            sqlite.set("Ada", forKey: "name")
            try sqlite.flush()
            print(plist.value(forKey: "launches", as: Int.self) ?? -1, sqlite.value(forKey: "name", as: String.self) ?? "-")

            """
        for (path, text) in [("Package.swift", manifest), ("Sources/consumer/main.swift", main)] {
            let file = package.appendingPathComponent(path)
            if (try? String(contentsOf: file, encoding: .utf8)) == text { continue }
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
    }
}
