import Foundation
import Observation
import StoredKit
import StoredKitTestSupport
import Synchronization
import Testing

/// The store files the freshness tests run on: each opens its backend, writes a first value and
/// leaves a file another process then changes.
enum FreshnessFile: String, CaseIterable, Sendable {
    case plistXML = "prefs.plist"
    case plistBinary = "prefs.binary.plist"
    case sqlite = "prefs.sqlite"

    func openStore(in folder: TemporaryDirectory) throws -> PreferenceStore {
        let url = folder.file(rawValue)
        switch self {
        case .plistXML: return try PreferenceStore(.plist(at: url))
        case .plistBinary: return try PreferenceStore(.plist(at: url, format: .binary))
        case .sqlite: return try PreferenceStore(.sqlite(at: url))
        }
    }
}

/// A settings holder as most apps write it: it reads, it never observes.
struct GreetingSettings: Sendable {
    @Stored<String> var greeting: String

    init(store: PreferenceStore) {
        _greeting = Stored(wrappedValue: "none", "greeting", store: store)
    }
}

/// Another process's write reaches a store nobody observes: in its reads and in Observation.
@Suite("A store nobody observes sees other processes' writes", .serialized)
struct CrossProcessFreshnessTests {
    @Test(arguments: FreshnessFile.allCases)
    func readsSeeAnotherProcessWrite(file: FreshnessFile) async throws {
        let folder = try TemporaryDirectory()
        let store = try file.openStore(in: folder)
        let settings = GreetingSettings(store: store)
        store.set("before", forKey: "greeting")
        try store.flush()
        #expect(store.value(forKey: "greeting", as: String.self) == "before")
        #expect(settings.greeting == "before")

        let writer = try HelperProcess(["set", folder.file(file.rawValue).path, "greeting", "from afar"])
        #expect(await writer.exitStatus() == 0)

        #expect(await eventually { store.value(forKey: "greeting", as: String.self) == "from afar" })
        #expect(await eventually { settings.greeting == "from afar" })
    }

    @Test(arguments: FreshnessFile.allCases)
    func observationTrackingIsToldOfAnotherProcessWrite(file: FreshnessFile) async throws {
        let folder = try TemporaryDirectory()
        let store = try file.openStore(in: folder)
        let settings = GreetingSettings(store: store)
        store.set("before", forKey: "greeting")
        try store.flush()
        let fired = Mutex(false)
        withObservationTracking {
            _ = settings.greeting
        } onChange: {
            fired.withLock { $0 = true }
        }

        let writer = try HelperProcess(["set", folder.file(file.rawValue).path, "greeting", "from afar"])
        #expect(await writer.exitStatus() == 0)

        #expect(await eventually { fired.withLock { $0 } })
        #expect(settings.greeting == "from afar")
    }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
