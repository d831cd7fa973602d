import Foundation
import StoredKit
import TabKit

/// `stored-demo measure-latency N`: how long from a keystroke (or another process's write) to
/// the redraw that shows it, measured as a person at a terminal would see it.
///
/// It runs the interactive demo in a pseudo-terminal on a temporary store, then times N
/// round trips of each kind: typing Space (hide/show the tab under the cursor) until the frame
/// showing the new state has been read back; and a `store.update` from this process (another
/// process, for the demo) until the demo's frame shows it.
///
/// ```swift
/// print(try LatencyMeasurement(count: 200).run())
/// //=> keystroke → redraw, same window:        p50 0.9 ms  p99 2.1 ms  max 3.0 ms  (200 samples)
/// ```
struct LatencyMeasurement {
    /// How long one redraw may take before the measurement gives up (not a threshold: a hang).
    static let patience = Duration.seconds(10)

    let count: Int

    func run() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stored-demo-latency-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storeURL = directory.appending(path: "prefs.sqlite")

        let terminal = try PseudoTerminal(size: TerminalSize(columns: 80, rows: 24))
        var screen = ScreenText()
        try terminal.spawn(
            "/proc/self/exe", arguments: ["--store", storeURL.path],
            environment: ["TERM=xterm-256color", "LANG=C.UTF-8", "HOME=\(directory.path)"])
        try waitFor("[x] Home", on: terminal, screen: &screen)

        // The cursor starts on Home: Space hides it, Space shows it again.
        var local: [Duration] = []
        for round in 0..<count {
            let start = ContinuousClock.now
            try terminal.send([0x20])
            try waitFor(round.isMultiple(of: 2) ? "[ ] Home" : "[x] Home", on: terminal, screen: &screen)
            local.append(ContinuousClock.now - start)
        }

        let writer = try PreferenceStore(fileAt: storeURL)
        var external: [Duration] = []
        for round in 0..<count {
            let hide = round.isMultiple(of: 2)
            let start = ContinuousClock.now
            try writer.update(.sidebar) { $0[tab: "climate"].sidebarVisibility = hide ? .hidden : .visible }
            try waitFor(hide ? "[ ] Climate" : "[x] Climate", on: terminal, screen: &screen)
            external.append(ContinuousClock.now - start)
        }

        try terminal.send(Array("q".utf8))
        while (try? terminal.read(timeoutMilliseconds: 1000))?.isEmpty == false {}  // drain what is left
        let status = terminal.waitForExit()
        return [
            Self.line("keystroke → redraw, same window:      ", local),
            Self.line("write in another process → redraw:    ", external),
            "(80×24 pseudo-terminal, temporary SQLite store; the demo exited with status \(status))",
        ].joined(separator: "\n")
    }

    private func waitFor(_ text: String, on terminal: PseudoTerminal, screen: inout ScreenText) throws {
        let deadline = ContinuousClock.now + Self.patience
        while !screen.shows(text) {
            guard ContinuousClock.now < deadline else {
                throw DemoError.refused("measure-latency: no frame showed '\(text)' within \(Self.patience).")
            }
            screen.append(try terminal.read(timeoutMilliseconds: 100))
        }
    }

    private static func line(_ label: String, _ samples: [Duration]) -> String {
        let sorted = samples.sorted()
        func percentile(_ fraction: Double) -> String {
            let index = min(Int((fraction * Double(sorted.count)).rounded(.up)) - 1, sorted.count - 1)
            return milliseconds(sorted[max(index, 0)])
        }
        return label
            + "p50 \(percentile(0.5))  p99 \(percentile(0.99))  max \(milliseconds(sorted.last ?? .zero))  (\(sorted.count) samples)"
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return String(format: "%.2f ms", value)
    }
}
