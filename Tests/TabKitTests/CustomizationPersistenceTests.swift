import Foundation
import StoredKit
import StoredKitTestSupport
import TabKit
import Testing

/// A customization survives a trip through real store files, and the demo persists it across processes.
@Suite("TabViewCustomization persisted with StoredKit")
struct CustomizationPersistenceTests {
    static let sidebarKey = StoredKey<TabViewCustomization>("sidebar", default: TabViewCustomization())

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appending(path: "TabKitTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test(arguments: ["prefs.plist", "prefs.sqlite"])
    func customizationRoundTripsThroughAReopenedStore(fileName: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appending(path: fileName)
        var customization = TabViewCustomization()
        customization[tab: "reports"].sidebarVisibility = .hidden
        customization[tab: "removed-in-this-version"].sidebarVisibility = .visible
        customization[section: "categories"].tabOrder = ["lights", "climate"]
        do {
            let store = try PreferenceStore(fileAt: url)
            store[Self.sidebarKey] = customization
            try store.flush()
        }
        let reopened = try PreferenceStore(fileAt: url)
        #expect(reopened[Self.sidebarKey] == customization)
        // Stored as a readable nested dictionary, not an opaque blob.
        guard case .dictionary(let stored) = reopened.storedValue(forKey: "sidebar") else {
            Issue.record("expected a dictionary, got \(String(describing: reopened.storedValue(forKey: "sidebar")))")
            return
        }
        #expect(stored["tabs"] != nil)
    }

    @Test func storedPropertyInTheDocumentationExample() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try PreferenceStore(.sqlite(at: directory.appending(path: "prefs.sqlite")))
        struct Screen {
            @Stored<TabViewCustomization> var customization: TabViewCustomization
        }
        let screen = Screen(customization: Stored(wrappedValue: TabViewCustomization(), "sidebar", store: store))
        screen.customization[tab: "reports"].sidebarVisibility = .hidden
        #expect(store[Self.sidebarKey][tab: "reports"].sidebarVisibility == .hidden)
    }

    @Test func demoChangeInOneProcessIsReadByAnother() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storePath = directory.appending(path: "demo.sqlite").path
        let hide = try runDemo(["--store", storePath, "hide", "reports"])
        #expect(hide.status == 0)
        #expect(hide.output.contains("[ ] Reports (reports)"))
        let show = try runDemo(["--store", storePath])
        #expect(show.status == 0)
        #expect(show.output.contains("[ ] Reports (reports)"))
        #expect(show.output.contains("stored read \(storePath) sidebar"))
        let bad = try runDemo(["--store", storePath, "hide", "nope"])
        #expect(bad.status == 3)
    }

    /// Runs the built `stored-demo` binary and returns its exit status and standard output.
    func runDemo(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try ExternalCommand.run(try DemoTerminal.demoExecutable().path, arguments)
    }
}
