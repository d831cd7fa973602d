import Foundation
import StoredKit
import Testing

/// What a tool reads to list a stack: each layer's role, file and description.
@Suite("PreferenceLayer: role, file, location, description")
struct PreferenceLayerDescriptionTests {
    @Test("every kind of layer says its role, file and location")
    func eachKind() {
        let forced = PreferenceLayer.forced(.plist(at: URL(filePath: "/etc/app/forced.plist")))
        let memory = PreferenceLayer.forced(.memory(["a": .int(1)], name: "test policy"))
        let arguments = PreferenceLayer.arguments(["app", "-volume", "0.3"])
        let environment = PreferenceLayer.environment(prefix: "MYAPP_", variables: ["MYAPP_A": "1"])
        let defaults = PreferenceLayer.defaults(.plist(at: URL(filePath: "/etc/xdg/app.plist")))
        #expect(
            [forced, memory, arguments, environment, defaults].map(\.role) == [
                .forced, .forced, .arguments, .environment, .defaults,
            ])
        #expect(forced.fileURL?.path(percentEncoded: false) == "/etc/app/forced.plist")
        #expect(defaults.fileURL?.path(percentEncoded: false) == "/etc/xdg/app.plist")
        #expect(memory.fileURL == nil && arguments.fileURL == nil && environment.fileURL == nil)
        #expect(
            [forced, memory, arguments, environment, defaults].map(\.description) == [
                "forced: /etc/app/forced.plist", "forced: test policy", "arguments: -key value", "environment: MYAPP_*",
                "defaults: /etc/xdg/app.plist",
            ])
    }

    @Test("roles sort in the order a store reads them; only defaults sit below the user")
    func readingOrder() throws {
        #expect(PreferenceLayer.Role.allCases.sorted() == [.forced, .arguments, .environment, .defaults])
        #expect(PreferenceLayer.Role.allCases.filter(\.isAboveUser) == [.forced, .arguments, .environment])
        // The order a tool shows is the order the store resolves: the forced value wins over the defaults one.
        let layers: [PreferenceLayer] = [
            .defaults(.memory(["volume": .double(0.5)], name: "site")),
            .forced(.memory(["volume": .double(0.3)], name: "policy")),
        ]
        let store = try PreferenceStore(MemoryBackend(), layers: layers)
        let first = try #require(layers.sorted { $0.role < $1.role }.first)
        #expect(store.source(forKey: "volume") == .forced(location: first.location))
    }

    @Test("the standard stack lists its files under the root, forced first")
    func standardStack() {
        let root = URL(filePath: "/tmp/root")
        let layers = PreferenceLayer.standard(suite: "app", root: root, arguments: nil, environment: ["XDG_CONFIG_DIRS": "/one"])
        #expect(
            layers.map(\.description) == [
                "forced: /tmp/root/etc/storedkit/forced/app.plist", "defaults: /tmp/root/one/app.plist",
                "defaults: /tmp/root/usr/local/etc/app.plist",
            ])
    }
}
