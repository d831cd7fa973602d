import Foundation

extension Process {
    /// How long a child of a test may run before ``run(killingAfter:)`` kills it: far beyond any
    /// healthy run (the longest, a torture scenario under load, takes about two minutes).
    ///
    /// ```swift
    /// Process.safetyNet  //=> .seconds(600)
    /// ```
    public static let safetyNet: Duration = .seconds(600)

    /// Starts the process, and kills it (SIGKILL) if it is still running after `limit`: a child
    /// that never ends by itself (a watch that missed its change, a proxy whose input another
    /// child inherited) then ends a test that waits for it with a failure instead of a hang.
    /// SIGKILL, because children of the test runner inherit a blocked SIGTERM.
    ///
    /// ```swift
    /// try process.run(killingAfter: .seconds(60))
    /// process.waitUntilExit()  // returns within 60 s
    /// ```
    public func run(killingAfter limit: Duration = Process.safetyNet) throws {
        try run()
        let identifier = processIdentifier
        let (seconds, attoseconds) = limit.components
        let delay = DispatchTimeInterval.milliseconds(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, isRunning else { return }
            FileHandle.standardError.write(
                Data("safety net: killing \(executableURL?.lastPathComponent ?? "?") (pid \(identifier)) after \(limit)\n".utf8))
            kill(identifier, SIGKILL)
        }
    }
}
