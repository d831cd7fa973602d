import Foundation
import Testing

@testable import StoredKit

/// The standard store's layers sit where Linux puts system-wide files, all under one root a test
/// chooses: the forced file at a fixed path, `$XDG_CONFIG_DIRS` (or /etc/xdg) and Foundation's
/// "any user" directory for defaults, and launch arguments unless switched off.
@Suite("Standard layers")
struct StandardLayersTests {
    func write(_ root: URL, _ path: String, _ values: [String: StoredValue]) throws {
        let url = root.appending(path: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try writeLayerFile(url, values)
    }

    @Test func everyStandardPathIsReadUnderTheRootInOrder() throws {
        let directory = try TemporaryDirectory()
        let root = directory.url
        try write(root, "etc/storedkit/forced/app.plist", ["locked": .int(1)])
        try write(root, "opt/site/app.plist", ["a": .int(2), "b": .int(2)])
        try write(root, "etc/vendor/app.plist", ["a": .int(3), "b": .int(3), "c": .int(3)])
        try write(root, "usr/local/etc/app.plist", ["a": .int(4), "b": .int(4), "c": .int(4), "d": .int(4)])
        try write(root, "etc/xdg/app.plist", ["d": .int(5)])  // not read: XDG_CONFIG_DIRS is set
        let layers = PreferenceLayer.standard(
            suite: "app", root: root, arguments: ["app", "-a", "1"],
            environment: ["XDG_CONFIG_DIRS": "/opt/site:relative/ignored:/etc/vendor"])
        let store = try PreferenceStore(.plist(at: directory.file("user.plist")), layers: layers)
        #expect(store.value(forKey: "a", as: Int.self) == 1)
        #expect(store.value(forKey: "b", as: Int.self) == 2)
        #expect(store.value(forKey: "c", as: Int.self) == 3)
        #expect(store.value(forKey: "d", as: Int.self) == 4)
        #expect(store.isForced(forKey: "locked"))
        let forcedPath = root.appending(path: "etc/storedkit/forced/app.plist").path(percentEncoded: false)
        #expect(store.source(forKey: "locked") == .forced(location: forcedPath))
    }

    @Test func withoutXDGConfigDirsTheDefaultsComeFromEtcXDG() throws {
        let directory = try TemporaryDirectory()
        try write(directory.url, "etc/xdg/app.plist", ["d": .int(5)])
        for environment in [[:], ["XDG_CONFIG_DIRS": ""]] {
            let store = try PreferenceStore(
                MemoryBackend(),
                layers: PreferenceLayer.standard(suite: "app", root: directory.url, arguments: nil, environment: environment))
            #expect(store.value(forKey: "d", as: Int.self) == 5)
        }
    }

    @Test func theForcedFileNeverComesFromTheEnvironment() {
        let layers = PreferenceLayer.standard(
            suite: "app", arguments: nil, environment: ["XDG_CONFIG_DIRS": "/home/me/evil", "XDG_CONFIG_HOME": "/home/me"])
        let forced = layers.compactMap { layer -> String? in
            guard case .forced(let source) = layer.kind else { return nil }
            return source.location
        }
        #expect(forced == ["/etc/storedkit/forced/app.plist"])
    }

    @Test func launchArgumentsCanBeSwitchedOff() {
        #expect(PreferenceStore.readsLaunchArguments)
        let without = PreferenceLayer.standard(suite: "app", arguments: nil, environment: [:])
        #expect(!without.contains { if case .arguments = $0.kind { true } else { false } })
        let with = PreferenceLayer.standard(suite: "app", arguments: ["app", "-x", "1"], environment: [:])
        #expect(with.contains { if case .arguments = $0.kind { true } else { false } })
    }

    @Test func aStandardStackWorksInsideWithStandard() throws {
        let directory = try TemporaryDirectory()
        try write(directory.url, "etc/xdg/app.plist", ["volume": .double(0.7)])
        let store = try PreferenceStore(
            MemoryBackend(), layers: PreferenceLayer.standard(suite: "app", root: directory.url, arguments: nil, environment: [:])
        )
        PreferenceStore.withStandard(store) {
            @Stored("volume") var volume = 0.5
            #expect(volume == 0.7)
            #expect(
                $volume.source
                    == .defaults(location: directory.url.appending(path: "etc/xdg/app.plist").path(percentEncoded: false)))
        }
    }
}
