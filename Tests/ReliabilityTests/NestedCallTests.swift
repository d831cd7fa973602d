import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

/// Calls on a store from inside its own transaction body (a nested transaction or update, a
/// flush, a plain write on an immediate store) and a transaction kept past its body. Each ended
/// the process with SIGILL or an unowned-reference abort before, so each runs in a child process:
/// a trap fails the one test, not the whole run. Serialized: a PostgreSQL helper holds a listener
/// and pooled connections, and twenty at once crowd a loaded test server ("too many clients").
@Suite("Calls made inside a transaction body, in a child process", .serialized)
struct NestedCallTests {
    static let forms = ["transaction", "update", "flush", "set", "kept"]
    static var backends: [String] { ["memory", "sqlite", "plist"] + (PostgresURLs.isEnabled ? ["postgres"] : []) }

    @Test(arguments: forms, backends)
    func nestedCallWorksOrThrowsNeverTraps(_ form: String, _ backend: String) async throws {
        let directory = try TemporaryDirectory()
        let target: String
        switch backend {
        case "sqlite": target = directory.file("prefs.sqlite").path
        case "plist": target = directory.file("prefs.plist").path
        case "postgres": target = try PostgresURLs.require().tcp
        default: target = "memory"
        }
        let namespace = "nested-\(UUID().uuidString)"
        // Immediate, so that a plain write inside the body wants a commit right away.
        let helper = try HelperProcess(
            ["nested", target, form], environment: ["STORED_NAMESPACE": namespace, "STORED_DURABILITY": "immediate"])
        let status = await helper.exitStatus()
        let lines = helper.lines
        #expect(status == 0, "\(form) on \(backend) ended with status \(status.map(String.init) ?? "none"): \(lines)")
        #expect(lines.last == "done")
        switch form {
        case "kept":
            #expect(lines.contains("late=nil"))
            #expect(lines.contains { $0.hasPrefix("event:") && $0.contains("'late'") && $0.contains("had ended") })
        case "flush":
            #expect(lines.contains { $0.hasPrefix("flush threw:") && $0.contains("inside a transaction body") })
            fallthrough
        default:
            #expect(lines.contains("a=1") && lines.contains("b=2"), "\(lines)")
            // What the child acknowledged is what a reopened store reads.
            guard backend != "memory" else { return }
            let reopened: PreferenceStore
            if backend == "postgres" {
                reopened = try PreferenceStore(.postgres(url: target, namespace: namespace))
            } else {
                reopened = try PreferenceStore(fileAt: URL(fileURLWithPath: target))
            }
            #expect(reopened.value(forKey: "a", as: Int.self) == 1)
            #expect(reopened.value(forKey: "b", as: Int.self) == 2)
        }
    }

    /// A transaction on a second store over the same file or namespace, inside a body: it throws
    /// (``StoreError/insideTransaction(path:operation:)``) instead of waiting for an exclusion
    /// this thread holds. Before, a plist store waited for ever on its own `flock`.
    @Test(arguments: ["sqlite", "plist"] + (PostgresURLs.isEnabled ? ["postgres"] : []))
    func aSecondStoreOfTheSameDataThrowsInsteadOfWaiting(_ backend: String) async throws {
        let directory = try TemporaryDirectory()
        let target =
            backend == "postgres"
            ? try PostgresURLs.require().tcp : directory.file(backend == "sqlite" ? "prefs.sqlite" : "prefs.plist").path
        let helper = try HelperProcess(
            ["nested", target, "second-store"], environment: ["STORED_NAMESPACE": "second-\(UUID().uuidString)"])
        let status = await helper.exitStatus(timeout: .seconds(60))
        let lines = helper.lines
        #expect(status == 0, "\(backend): status \(status.map(String.init) ?? "none (killed after 60 s)"): \(lines)")
        #expect(lines.contains { $0.hasPrefix("second store's transaction threw:") && $0.contains("inside a transaction body") })
        #expect(lines.contains("a=1") && lines.contains("b=2") && lines.contains("late=nil"), "\(lines)")
    }
}
