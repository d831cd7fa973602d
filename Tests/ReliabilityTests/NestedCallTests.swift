import Foundation
import StoredKit
import StoredKitTestSupport
import Testing

/// Calls on a store from inside its own transaction body (a nested transaction or update, a
/// flush, a plain write on an immediate store) and a transaction kept past its body. Each ended
/// the process with SIGILL or an unowned-reference abort before, so each runs in a child process:
/// a trap fails the one test, not the whole run.
@Suite("Calls made inside a transaction body, in a child process")
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
}
