import Foundation
import Testing

/// Where `stored-demo` keeps its store when no `--store` is given: the XDG base directories.
@Suite("stored-demo's default store")
struct DemoStoreLocationTests {
    let home: URL

    init() throws {
        home = FileManager.default.temporaryDirectory.appending(path: "DemoStoreLocationTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    @Test func theStoreIsUnderHomeWhenXDGDataHomeIsUnset() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try DemoProcess.run([], environment: ["HOME": home.path])
        #expect(result.status == 0)
        let expected = home.appending(path: ".local/share/stored-demo/prefs.sqlite").path
        #expect(result.output.contains("stored read \(expected) sidebar"))
        #expect(FileManager.default.fileExists(atPath: expected))
    }

    @Test func xdgDataHomeWinsOverHome() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let data = home.appending(path: "data").path
        let result = try DemoProcess.run([], environment: ["HOME": home.path, "XDG_DATA_HOME": data])
        #expect(result.status == 0)
        #expect(result.output.contains("stored read \(data)/stored-demo/prefs.sqlite sidebar"))
    }
}
