import Foundation
import Testing

@testable import StoredKit

@Suite("PlistBackend location")
struct PlistBackendLocationTests {
    @Test func suiteFileIsInXDGConfigHomeWhenItIsAbsolute() {
        let url = PlistBackend.fileURL(
            forSuite: "com.example.app", environment: ["XDG_CONFIG_HOME": "/srv/cfg", "HOME": "/home/me"])

        #expect(url.path == "/srv/cfg/com.example.app.plist")
    }

    @Test(arguments: [nil, "", "relative/dir"])
    func suiteFileFallsBackToDotConfigInHome(configHome: String?) {
        var environment = ["HOME": "/home/me"]
        environment["XDG_CONFIG_HOME"] = configHome

        let url = PlistBackend.fileURL(forSuite: "com.example.app", environment: environment)

        #expect(url.path == "/home/me/.config/com.example.app.plist")
    }

    @Test func suiteBackendUsesTheSuiteFile() {
        let backend = PlistBackend.plist(suite: "com.example.tests", format: .binary)

        #expect(backend.path == PlistBackend.fileURL(forSuite: "com.example.tests").path)
        #expect(backend.format == .binary)
    }

    @Test func defaultSuiteNameIsTheExecutablesNameWithoutABundle() {
        let expected = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName

        #expect(PlistBackend.defaultSuiteName() == expected)
        #expect(!PlistBackend.defaultSuiteName().isEmpty)
    }

    @Test func creatingABackendTouchesNothing() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }

        _ = PlistBackend.plist(at: scratch.file("dir/prefs.plist"))

        #expect(try scratch.names().isEmpty)
    }
}
