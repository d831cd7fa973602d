import Foundation
import StoredKit
import TabKit

/// `stored-demo measure-latency N`: how long from a keystroke (or another process's write) to
/// the redraw that shows it, measured as a person at a terminal would see it.
///
/// It runs two interactive demos, each in its own pseudo-terminal, on one temporary store, and
/// times N round trips of each kind, from the moment the key is typed (or the write starts)
/// until the frame that shows the change has been read back from the terminal:
/// - Space in window A (hide/show the tab under the cursor), redrawn in window A;
/// - the same keystroke in window A, redrawn in window B (another process);
/// - a `store.update` made by this process (a third one, like `stored-demo hide`), redrawn in A;
/// - an administrator's save of the forced file by this process (a new file renamed over it, the
///   locked room list alternating), redrawn in A.
///
/// ```swift
/// print(try LatencyMeasurement(count: 200).run())
/// //=> keystroke → redraw, same window:          p50 3.67 ms  p99 8.44 ms  max 19.91 ms  (200 samples)
/// ```
struct LatencyMeasurement {
    /// How long one redraw may take before the measurement gives up (not a threshold: a hang).
    static let patience = Duration.seconds(10)

    let count: Int

    /// One demo in its own pseudo-terminal, and the screen read back from it.
    final class Window {
        let terminal: PseudoTerminal
        var screen = ScreenText()

        init(storeURL: URL, forcedURL: URL, home: URL) throws {
            terminal = try PseudoTerminal(size: TerminalSize(columns: 80, rows: 24))
            try terminal.spawn(
                "/proc/self/exe", arguments: ["--store", storeURL.path, "--forced", forcedURL.path],
                environment: ["TERM=xterm-256color", "LANG=C.UTF-8", "HOME=\(home.path)"])
        }

        /// Reads what arrived, waiting at most `milliseconds` for it.
        func pump(milliseconds: Int32) throws {
            screen.append(try terminal.read(timeoutMilliseconds: milliseconds))
        }
    }

    func run() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stored-demo-latency-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storeURL = directory.appending(path: "prefs.sqlite")
        let forcedURL = directory.appending(path: "forced.plist")  // none until the last rounds

        let first = try Window(storeURL: storeURL, forcedURL: forcedURL, home: directory)
        let second = try Window(storeURL: storeURL, forcedURL: forcedURL, home: directory)
        let windows = [first, second]
        for window in windows { try waitFor("[x] Home", in: window, pumping: windows) }

        // The cursor starts on Home: Space hides it, Space shows it again.
        var local: [Duration] = []
        var otherWindow: [Duration] = []
        for round in 0..<(2 * count) {
            let expected = round.isMultiple(of: 2) ? "[ ] Home" : "[x] Home"
            let start = ContinuousClock.now
            try first.terminal.send([0x20])
            // Even rounds time window A, odd rounds window B, so each wait starts at the keystroke.
            let timed = round.isMultiple(of: 2) ? first : second
            try waitFor(expected, in: timed, pumping: windows)
            let elapsed = ContinuousClock.now - start
            if timed === first { local.append(elapsed) } else { otherWindow.append(elapsed) }
            for window in windows where window !== timed { try waitFor(expected, in: window, pumping: windows) }
        }

        let writer = try PreferenceStore(fileAt: storeURL)
        var external: [Duration] = []
        for round in 0..<count {
            let hide = round.isMultiple(of: 2)
            let start = ContinuousClock.now
            try writer.update(.sidebar) { $0[tab: "climate"].sidebarVisibility = hide ? .hidden : .visible }
            try waitFor(hide ? "[ ] Climate" : "[x] Climate", in: first, pumping: windows)
            external.append(ContinuousClock.now - start)
            try waitFor(hide ? "[ ] Climate" : "[x] Climate", in: second, pumping: windows)
        }

        var administrator: [Duration] = []
        for round in 0..<count {
            let room = round.isMultiple(of: 2) ? "Attic" : "Cellar"
            let start = ContinuousClock.now
            try Self.saveForcedRooms([room], to: forcedURL)
            try waitFor("[x] \(room)", in: first, pumping: windows)
            administrator.append(ContinuousClock.now - start)
            try waitFor("[x] \(room)", in: second, pumping: windows)
        }

        var statuses: [Int32] = []
        for window in windows {
            try window.terminal.send(Array("q".utf8))
            while (try? window.terminal.read(timeoutMilliseconds: 1000))?.isEmpty == false {}  // drain what is left
            statuses.append(window.terminal.waitForExit())
        }
        return [
            Self.line("keystroke → redraw, same window:        ", local),
            Self.line("keystroke → redraw, other window:       ", otherWindow),
            Self.line("write in a third process → redraw:      ", external),
            Self.line("forced-file save → redraw:              ", administrator),
            "(80×24 pseudo-terminals, one temporary SQLite store; the demos exited with \(statuses))",
        ].joined(separator: "\n")
    }

    /// Saves the forced file as an administrator's tool does: a new file renamed over the old one.
    private static func saveForcedRooms(_ rooms: [String], to url: URL) throws {
        let names = rooms.map { "<string>\($0)</string>" }.joined()
        let text =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict><key>rooms</key><array>"
            + names + "</array></dict></plist>\n"
        let temporary = url.deletingLastPathComponent().appending(path: url.lastPathComponent + ".new")
        try Data(text.utf8).write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            throw DemoError.refused("measure-latency: cannot rename '\(temporary.path)' (errno \(errno)).")
        }
    }

    /// Reads every window (so none blocks on a full terminal) until `window` shows `text`.
    private func waitFor(_ text: String, in window: Window, pumping windows: [Window]) throws {
        let deadline = ContinuousClock.now + Self.patience
        while !window.screen.shows(text) {
            guard ContinuousClock.now < deadline else {
                throw DemoError.refused("measure-latency: no frame showed '\(text)' within \(Self.patience).")
            }
            for other in windows where other !== window { try other.pump(milliseconds: 0) }
            try window.pump(milliseconds: 20)
        }
    }

    private static func line(_ label: String, _ samples: [Duration]) -> String {
        let sorted = samples.sorted()
        func percentile(_ fraction: Double) -> String {
            let index = min(Int((fraction * Double(sorted.count)).rounded(.up)) - 1, sorted.count - 1)
            return milliseconds(sorted[max(index, 0)])
        }
        let figures = "p50 \(percentile(0.5))  p99 \(percentile(0.99))  max \(milliseconds(sorted.last ?? .zero))"
        return label + figures + "  (\(sorted.count) samples)"
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.2f ms", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
