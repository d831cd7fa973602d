import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

// The examples of "Layers, launch arguments and administrators" (Sources/StoredKit/StoredKit.docc/LayersAndAdministrators.md).

@Suite("Layers, launch arguments and administrators")
struct LayersExamples {
    @Test func theStackOfTheOverviewOpens() throws {
        let directory = try TemporaryDirectory()
        let userFile = directory.file("user.sqlite")
        let etc = directory.url  // stands for /etc/xdg/myapp
        let store = try PreferenceStore(
            .sqlite(at: userFile),
            layers: [
                .forced(.plist(at: etc.appending(path: "forced.plist"))),
                .arguments(CommandLine.arguments),
                .environment(prefix: "MYAPP_"),
                .defaults(.plist(at: etc.appending(path: "defaults.plist"))),
            ])
        #expect(store.source(forKey: "volume") == .keyDefault)
    }

    @Test func theHighestLayerWinsAndTheUsersValueStays() throws {
        let store = try PreferenceStore(
            MemoryBackend(),
            layers: [
                .arguments(["myapp", "-volume", "0.3"]),
                .defaults(.memory(["volume": .double(0.5), "speed": .int(2)], name: "site")),
            ])
        store.set(0.8, forKey: "volume")
        #expect(store.value(forKey: "volume", as: Double.self) == 0.3)
        #expect(store.source(forKey: "volume") == .arguments)
        #expect(store.userValue(forKey: "volume", as: Double.self) == 0.8)
        #expect(store.source(forKey: "speed") == .defaults(location: "site"))
    }

    @Test func aForcedKeyIsGreyedOutAndRefusesWrites() throws {
        let store = try PreferenceStore(
            MemoryBackend(), layers: [.forced(.memory(["volume": .double(0.2)], name: "policy"))])
        @Stored("volume", store: store) var volume = 0.5
        #expect($volume.isForced)
        store.set(0.9, forKey: "volume")
        #expect(volume == 0.2)
        #expect(store.recentEvents.contains { if case .forcedWriteRefused = $0 { true } else { false } })
        #expect {
            try store.transaction { tx in
                tx.set(1, forKey: "other")
                tx.set(0.9, forKey: "volume")
            }
        } throws: { error in
            if case StoreError.forced(key: "volume", _) = error { true } else { false }
        }
        #expect(store.value(forKey: "other", as: Int.self) == nil)
    }

    @Test func textConvertsToTheKeysType() throws {
        let store = try PreferenceStore(
            MemoryBackend(),
            layers: [
                .arguments([
                    "myapp", "-volume", "0.3", "-tabs", #"["home","search"]"#, "-lastRun", "2026-01-02T03:04:05Z",
                ])
            ])
        #expect(store.value(forKey: "volume", as: Double.self) == 0.3)
        #expect(store.value(forKey: "tabs", as: [String].self) == ["home", "search"])
        #expect(store.value(forKey: "lastRun", as: Date.self) == Date(timeIntervalSince1970: 1_767_323_045))
        #expect(PreferenceLayer.environmentVariable(forKey: "sidebar.order", prefix: "MYAPP_") == "MYAPP_SIDEBAR_ORDER")
        #expect(PreferenceLayer.environmentVariable(forKey: "launchCount", prefix: "MYAPP_") == "MYAPP_LAUNCH_COUNT")
    }

    @Test func textThatDoesNotConvertFallsThrough() throws {
        let store = try PreferenceStore(
            MemoryBackend(values: ["volume": .double(0.4)]), layers: [.arguments(["myapp", "-volume", "loud"])])
        #expect(store.value(forKey: "volume", as: Double.self) == 0.4)
        #expect(store.recentEvents.contains { if case .layerValueUnreadable = $0 { true } else { false } })
    }

    @Test func everyLayerCanComeFromMemoryOrATemporaryRoot() throws {
        let temporaryRoot = try TemporaryDirectory().url
        let store = try PreferenceStore(
            MemoryBackend(),
            layers: [
                .forced(.memory(["volume": .double(0.2)])),
                .environment(prefix: "MYAPP_", variables: ["MYAPP_SPEED": "3"]),
            ])
        #expect(store.value(forKey: "speed", as: Int.self) == 3)
        let standardLike = try PreferenceStore(
            MemoryBackend(),
            layers: PreferenceLayer.standard(suite: "app", root: temporaryRoot, arguments: nil, environment: [:]))
        #expect(standardLike.keys.isEmpty)
    }

    @Test func aStackListsItsLayersInReadingOrder() throws {
        let layers: [PreferenceLayer] = [
            .defaults(.plist(at: URL(filePath: "/etc/xdg/myapp/defaults.plist"))),
            .environment(prefix: "MYAPP_", variables: [:]),
            .forced(.plist(at: URL(filePath: "/etc/xdg/myapp/forced.plist"))),
        ]
        let listed = layers.sorted(by: { $0.role < $1.role }).map(\.description)
        #expect(
            listed == [
                "forced: /etc/xdg/myapp/forced.plist", "environment: MYAPP_*", "defaults: /etc/xdg/myapp/defaults.plist",
            ])
        #expect(layers[0].fileURL?.path == "/etc/xdg/myapp/defaults.plist")
        #expect(layers[1].fileURL == nil)
        #expect(layers.map(\.role.isAboveUser) == [false, true, true])
        #expect(PreferenceLayer.arguments(["app"]).location == "-key value")
    }
}
