import Foundation
import Testing

@testable import StoredKit

/// Arguments and the environment hold text; a typed read converts it, and text that does not
/// convert is reported and the read falls through.
@Suite("Text layers")
struct LayerTextTests {
    struct Window: Codable, Equatable, Sendable {
        var width: Int
        var title: String
    }

    func store(_ arguments: [String]) throws -> PreferenceStore {
        try PreferenceStore(MemoryBackend(), layers: [.arguments(["app"] + arguments)])
    }

    @Test func scalarsConvertToTheTypeTheyAreReadAs() throws {
        let store = try store([
            "-yes", "YES", "-no", "NO", "-t", "true", "-f", "false", "-one", "1", "-zero", "0", "-count", "-42",
            "-big", "18446744073709551615", "-ratio", "0.25", "-when", "2024-05-06T07:08:09Z", "-name", "Ada",
            "-link", "https://example.com/a", "-theme", "light",
        ])
        #expect(store.value(forKey: "yes", as: Bool.self) == true)
        #expect(store.value(forKey: "no", as: Bool.self) == false)
        #expect(store.value(forKey: "t", as: Bool.self) == true)
        #expect(store.value(forKey: "f", as: Bool.self) == false)
        #expect(store.value(forKey: "one", as: Bool.self) == true)
        #expect(store.value(forKey: "zero", as: Bool.self) == false)
        #expect(store.value(forKey: "one", as: Int.self) == 1)
        #expect(store.value(forKey: "one", as: Double.self) == 1)
        #expect(store.value(forKey: "one", as: String.self) == "1")
        #expect(store.value(forKey: "count", as: Int.self) == -42)
        #expect(store.value(forKey: "big", as: UInt64.self) == .max)
        #expect(store.value(forKey: "ratio", as: Double.self) == 0.25)
        #expect(store.value(forKey: "when", as: Date.self) == Date(timeIntervalSince1970: 1_714_979_289))
        #expect(store.value(forKey: "name", as: String.self) == "Ada")
        #expect(store.value(forKey: "link", as: URL.self) == URL(string: "https://example.com/a"))
        #expect(store.value(forKey: "theme", as: Theme.self) == .light)
        #expect(store[StoredKey<Theme>("theme", default: .dark)] == .light)
    }

    @Test func jsonAndPlistTextConvertToCollectionsAndCodableValues() throws {
        let plist = String(decoding: try PlistCodec.encode(.array([.string("a"), .string("b")]), format: .xml), as: UTF8.self)
        let store = try store([
            "-tabs", #"["home", "search"]"#, "-sizes", #"{"small": 1, "large": 3}"#,
            "-window", #"{"width": 800, "title": "Main"}"#, "-fromPlist", plist,
        ])
        #expect(store.value(forKey: "tabs", as: [String].self) == ["home", "search"])
        #expect(store.value(forKey: "sizes", as: [String: Int].self) == ["small": 1, "large": 3])
        #expect(store.value(forKey: "window", as: Window.self) == Window(width: 800, title: "Main"))
        #expect(Stored(StoredKey<Window?>("window"), store: store).wrappedValue == Window(width: 800, title: "Main"))
        #expect(store.value(forKey: "fromPlist", as: [String].self) == ["a", "b"])
    }

    @Test func textThatDoesNotConvertIsReportedAndFallsThrough() throws {
        let store = try PreferenceStore(
            MemoryBackend(values: ["volume": .double(0.4)]),
            layers: [.arguments(["app", "-volume", "loud", "-tabs", "[broken"])])
        #expect(store.value(forKey: "volume", as: Double.self) == 0.4)
        #expect(store.value(forKey: "tabs", as: [String].self) == nil)
        let reasons = store.recentEvents.compactMap { event -> String? in
            guard case .layerValueUnreadable(_, .arguments, let reason) = event else { return nil }
            return reason
        }
        #expect(reasons.contains { $0.contains("\"loud\" is not a Double") })
        #expect(reasons.contains { $0.contains("[broken") })
    }

    @Test func argumentsAreReadTheWayUserDefaultsReadsThem() {
        #expect(
            LaunchArguments.parse(["/usr/bin/app", "file.txt", "-a", "1", "--verbose", "-b", "-2", "-a", "3", "-c"])
                == ["a": "3", "b": "-2"])
        #expect(LaunchArguments.parse(["app", "-a", "1", "--", "-b", "2"]) == ["a": "1"])
        #expect(LaunchArguments.parse(["-a", "1"]).isEmpty)  // element 0 is the program
    }

    @Test func environmentVariablesFollowTheDocumentedEncoding() throws {
        #expect(PreferenceLayer.environmentVariable(forKey: "volume", prefix: "MYAPP_") == "MYAPP_VOLUME")
        #expect(PreferenceLayer.environmentVariable(forKey: "sidebar.order", prefix: "MYAPP_") == "MYAPP_SIDEBAR_ORDER")
        #expect(PreferenceLayer.environmentVariable(forKey: "launchCount", prefix: "A_") == "A_LAUNCH_COUNT")
        #expect(PreferenceLayer.environmentVariable(forKey: "café-2", prefix: "") == "CAF__2")
        let store = try PreferenceStore(
            MemoryBackend(),
            layers: [.environment(prefix: "MYAPP_", variables: ["MYAPP_SIDEBAR_ORDER": #"["a","b"]"#, "HOME": "/root"])])
        #expect(store.value(forKey: "sidebar.order", as: [String].self) == ["a", "b"])
        #expect(store.source(forKey: "sidebar.order") == .environment(variable: "MYAPP_SIDEBAR_ORDER"))
        #expect(store.value(forKey: "sidebar_order", as: [String].self) == ["a", "b"])
        let collisions = store.recentEvents.compactMap { event -> [String]? in
            guard case .environmentCollision("MYAPP_SIDEBAR_ORDER", let keys) = event else { return nil }
            return keys
        }
        #expect(collisions == [["sidebar.order", "sidebar_order"]])
        #expect(store.value(forKey: "home", as: String.self) == nil)  // only variables with the prefix
    }

    /// A read whose text needs no conversion (a `String`, or `storedValue`) takes the fast path of
    /// issue 30; it must report a shared variable all the same.
    @Test func twoKeysSharingAVariableAreReportedOnReadsThatNeedNoConversion() throws {
        let store = try PreferenceStore(
            MemoryBackend(), layers: [.environment(prefix: "MYAPP_", variables: ["MYAPP_SIDEBAR_ORDER": "tabs"])])
        #expect(store.value(forKey: "sidebar.order", as: String.self) == "tabs")
        #expect(store.storedValue(forKey: "sidebar_order") == .string("tabs"))
        let collisions = store.recentEvents.compactMap { event -> [String]? in
            guard case .environmentCollision("MYAPP_SIDEBAR_ORDER", let keys) = event else { return nil }
            return keys
        }
        #expect(collisions == [["sidebar.order", "sidebar_order"]])
    }

    /// Asking where a value comes from (as `stored read --source` and a settings screen do) looks
    /// the variable up too: a shared one is reported there as well.
    @Test func twoKeysSharingAVariableAreReportedWhenAskedForTheirSource() throws {
        let store = try PreferenceStore(
            MemoryBackend(), layers: [.environment(prefix: "MYAPP_", variables: ["MYAPP_SIDEBAR_ORDER": "tabs"])])
        #expect(store.source(forKey: "sidebar.order") == .environment(variable: "MYAPP_SIDEBAR_ORDER"))
        #expect(store.source(forKey: "sidebar_order") == .environment(variable: "MYAPP_SIDEBAR_ORDER"))
        let collisions = store.recentEvents.compactMap { event -> [String]? in
            guard case .environmentCollision("MYAPP_SIDEBAR_ORDER", let keys) = event else { return nil }
            return keys
        }
        #expect(collisions == [["sidebar.order", "sidebar_order"]])
    }
}
