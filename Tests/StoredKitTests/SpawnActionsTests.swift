import Foundation
import StoredKitTestSupport
import Testing

/// Children started with `posix_spawn` (the demo on a terminal, stored-torture's children) get
/// nothing of the test process but their standard descriptors: an inherited pipe of another test
/// kept that test waiting for as long as the child ran.
@Suite("Children spawned by the tests inherit no descriptor")
struct SpawnActionsTests {
    @Test func aSpawnedChildSeesOnlyItsStandardDescriptors() throws {
        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)  // no close-on-exec, as Foundation's Pipe
        defer { pipeEnds.forEach { close($0) } }
        let listing = try Self.descriptorsOfChild()
        #expect(!listing.contains(pipeEnds[0]) && !listing.contains(pipeEnds[1]), "the child holds \(listing)")
        #expect(Set(listing).isSuperset(of: [0, 1, 2]))
    }

    /// The descriptors `/bin/ls /proc/self/fd` finds open in a child spawned with the tests' actions
    /// (its own handle on that directory among them).
    static func descriptorsOfChild() throws -> [Int32] {
        let output = FileManager.default.temporaryDirectory.appending(path: "spawn-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(SpawnActions.closeEverythingElse(&actions))
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/ls"), strdup("/proc/self/fd"), nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        #expect(posix_spawn(&child, "/bin/ls", &actions, nil, argv, environ) == 0)
        var status: Int32 = 0
        waitpid(child, &status, 0)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        return text.split(separator: "\n").compactMap { Int32($0) }
    }
}
