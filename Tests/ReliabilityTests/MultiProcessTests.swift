import Foundation
import StoredKit
import StoredKitTestSupport
import Synchronization
import Testing

/// The file kinds every multi-process test runs against.
let storeFileNames = ["prefs.plist", "prefs.sqlite"]

@Suite("Several processes on one store file", .serialized)
struct MultiProcessTests {
    @Test(arguments: storeFileNames)
    func fourProcessesIncrementingLoseNothing(fileName: String) async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file(fileName).path
        let helpers = try (0..<4).map { _ in try HelperProcess(["increment", path, "500"]) }
        for helper in helpers {
            #expect(await helper.exitStatus() == 0)
        }
        let store = try PreferenceStore(fileAt: URL(fileURLWithPath: path))
        #expect(store.value(forKey: "counter", as: Int.self) == 2000)
    }

    @Test(arguments: storeFileNames)
    func observerInAnotherProcessSeesTheWrite(fileName: String) async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file(fileName)
        let store = try PreferenceStore(fileAt: url)
        store.set("before", forKey: "greeting")
        try store.flush()
        let observer = try HelperProcess(["observe", url.path, "greeting", "1"])
        #expect(await observer.waitForLine { $0 == "ready" })
        store.set("hello", forKey: "greeting")
        try store.flush()
        let status = await observer.exitStatus()
        #expect(status == 0)
        #expect(observer.lines.contains("greeting=\"hello\" external"))
    }

    @Test(arguments: storeFileNames)
    func observerHereSeesAnotherProcessWrite(fileName: String) async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file(fileName)
        let store = try PreferenceStore(fileAt: url)
        let seen = ChangeLog()
        let token = store.observe("greeting") { seen.append($0) }
        let writer = try HelperProcess(["set", url.path, "greeting", "from afar"])
        #expect(await writer.exitStatus() == 0)
        #expect(await seen.wait { $0.contains { $0.newValue == .string("from afar") && $0.origin == .external } })
        #expect(store.value(forKey: "greeting", as: String.self) == "from afar")
        withExtendedLifetime(token) {}
    }
}

/// Changes delivered on other threads.
final class ChangeLog: Sendable {
    private let changes = Mutex<[Change]>([])

    func append(_ change: Change) { changes.withLock { $0.append(change) } }

    func wait(timeout: Duration = .seconds(30), until condition: ([Change]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(changes.withLock { $0 }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(changes.withLock { $0 })
    }
}
