import Foundation
import StoredKitTestSupport
import Testing

/// The relay's driver (``SilentServerProxy``) against a stand-in program that speaks its
/// protocol slowly: the port in two writes, each answer 200 ms after the command. A command
/// that returned before its answer would let a test act on a relay not yet cut (a CI run's
/// `aCutFailsTheOpenConnectionAndRefusesNewOnesUntilTheHeal` sent its query through the relay
/// it had just "cut", and connected while it was still cut after a "heal").
@Suite("The relay's driver waits for each whole answer")
struct SilentServerProxyTests {
    /// Prints its port in two writes and, for each command, leaves a file named after it in its
    /// own folder before it answers.
    static let standIn = """
        import os, sys, time
        folder = os.path.dirname(os.path.abspath(__file__))
        os.write(1, b"4242")
        time.sleep(0.2)
        os.write(1, b"\\n")
        for line in sys.stdin:
            command = line.strip()
            time.sleep(0.2)
            open(os.path.join(folder, command), "w").close()
            os.write(1, (command + "\\n").encode())
        """

    @Test func aCommandReturnsOnlyOnceTheProxyAnsweredIt() throws {
        let folder = try TemporaryDirectory()
        let script = folder.file("stand-in.py")
        try Data(Self.standIn.utf8).write(to: script)
        let proxy = try SilentServerProxy(to: "postgresql://postgres@127.0.0.1:5432/postgres", script: script.path)
        defer { proxy.stop() }
        #expect(proxy.url == "postgresql://postgres@127.0.0.1:4242/postgres")

        for (command, act) in [("cut", proxy.cut), ("heal", proxy.heal), ("silence", proxy.silence)] {
            try act()
            #expect(
                FileManager.default.fileExists(atPath: folder.file(command).path),
                "\(command)() returned before the proxy had acted on it")
        }
    }
}
