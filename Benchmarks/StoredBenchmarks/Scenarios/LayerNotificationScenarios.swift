import Foundation
import Glibc
import StoredKit

/// An administrator's edit of the forced file reaching an app in another process (issue 31), with
/// the plain cross-process notice (a user's write from another process) measured beside it: the
/// same writer process alternates the two kinds of change, 20 ms apart, and the same store in
/// this process observes both, so both figures come from the same moments of the run.
enum LayerNotificationScenarios {
    /// The key the administrator's file forces: the writer's send time.
    static let policy = StoredKey<Int>("policy", default: 0)
    static let writeIntervalMilliseconds = 20

    static var all: [Scenario] { [ForcedEdit.rename, .inPlace].map(scenario) }

    /// How the administrator's tool saves the forced file.
    enum ForcedEdit: String {
        /// A new file renamed over the old one, as configuration tools and most editors save.
        case rename
        /// The file truncated and written again, as `cat > file` or an editor told to keep the inode does.
        case inPlace = "in-place"
    }

    static func scenario(_ edit: ForcedEdit) -> Scenario {
        Scenario(
            name: "layers.notify.forced-edit.\(edit.rawValue)", group: "layers",
            measures: "Process A saves the forced plist ("
                + (edit == .rename ? "a new file renamed over it" : "rewritten in place")
                + ") with a new value of a forced key; an observer in process B (here), whose SQLite store reads that "
                + "file as its forced layer, fires. A→B delay on CLOCK_MONOTONIC, p50/p99. A alternates it with a user write.",
            subject: "store.observe in B ← forced file saved in A",
            baselines: [
                Baseline("user-write", "store.observe in B ← a user's set + flush() in A (the plain notice)")
            ]
        ) { context in
            let count = context.scaled(full: 100, quick: 15)
            let directory = try context.makeDirectory("forced-notify")
            let forcedFile = directory.appending(path: "forced.plist")
            try writeForcedFile(forcedFile, value: 0, edit: .rename)
            let store = try PreferenceStore(
                .sqlite(at: FileStoreKind.sqlite.fileURL(in: directory)), layers: [.forced(.plist(at: forcedFile))])
            guard store.isForced(forKey: policy.name) else {
                throw BenchmarkError.unexpected("the forced file did not force '\(policy.name)'")
            }
            store[NotificationScenarios.ping] = 0
            try store.flush()
            let administrator = NotificationScenarios.ArrivalLog()
            let user = NotificationScenarios.ArrivalLog()
            let tokens = [
                store.observe(policy) { change in
                    if change.origin == .external, change.newValue > 0 { administrator.record(sentAt: change.newValue) }
                },
                store.observe(NotificationScenarios.ping) { change in
                    if change.origin == .external, change.newValue > 0 { user.record(sentAt: change.newValue) }
                },
            ]
            let writer = try ChildProcess([
                "forced-edit-writer", edit.rawValue, directory.path, "\(count)", "\(writeIntervalMilliseconds)",
            ])
            try writer.expect("ready")
            writer.send("go")
            try writer.waitForExit()
            let deadline = ContinuousClock.now + .seconds(2)
            while administrator.latencies.count < count || user.latencies.count < count, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.01)
            }
            let (forced, plain) = withExtendedLifetime(tokens) { (administrator.latencies, user.latencies) }
            guard !forced.isEmpty, !plain.isEmpty else {
                throw BenchmarkError.unexpected(
                    "process B heard \(forced.count) forced-file edits and \(plain.count) user writes of \(count) each")
            }
            // A reader may catch an in-place save between the truncation and the write: reported, last good kept.
            let unreadable = store.recentEvents.filter {
                if case .layerFileUnreadable = $0 { return true }
                return false
            }
            return ScenarioOutcome(
                subject: .measured(Figure(latencies: forced)), baselines: ["user-write": .measured(Figure(latencies: plain))],
                notes: [
                    "B was notified of \(forced.count) of \(count) forced-file edits and \(plain.count) of \(count) user writes "
                        + "(alternating, \(writeIntervalMilliseconds) ms apart)",
                    "B read the forced file mid-save (empty, reported, last good values kept) \(unreadable.count) times "
                        + "(of its last 100 diagnostics)",
                ])
        }
    }

    /// `--child forced-edit-writer <edit> <directory> <count> <interval-ms>`: says "ready"; once told to
    /// go, `count` times: saves the forced file with its send time as ``policy``, waits, sets the
    /// user's ``NotificationScenarios/ping`` to its send time and flushes, waits.
    static func writerChild(_ arguments: [String]) throws {
        guard arguments.count == 4, let edit = ForcedEdit(rawValue: arguments[0]), let count = Int(arguments[2]),
            let interval = UInt32(arguments[3])
        else {
            throw BenchmarkError.unexpected(
                "usage: --child forced-edit-writer <rename|in-place> <directory> <count> <interval-ms>")
        }
        let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
        let forcedFile = directory.appending(path: "forced.plist")
        let store = try FileStoreKind.sqlite.openStore(in: directory)
        ChildSide.say("ready")
        try ChildSide.waitForGo()
        for _ in 0..<count {
            try writeForcedFile(forcedFile, value: Int(monotonicNanoseconds()), edit: edit)
            usleep(interval * 1_000)
            store[NotificationScenarios.ping] = Int(monotonicNanoseconds())
            try store.flush()
            usleep(interval * 1_000)
        }
        ChildSide.say("done")
    }

    /// Saves the forced file as an administrator's tool would: XML text, one write.
    static func writeForcedFile(_ url: URL, value: Int, edit: ForcedEdit) throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            \t<key>\(policy.name)</key>
            \t<integer>\(value)</integer>
            </dict>
            </plist>

            """
        switch edit {
        case .rename:
            let temporary = url.deletingLastPathComponent().appending(path: url.lastPathComponent + ".new")
            try write(text, to: temporary.path)
            guard rename(temporary.path, url.path) == 0 else {
                throw BenchmarkError.unexpected("rename to '\(url.path)' failed (errno \(errno))")
            }
        case .inPlace:
            try write(text, to: url.path)
        }
    }

    /// open(O_TRUNC), one write(2), close: the file is never written in pieces but is empty for a moment.
    private static func write(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchmarkError.unexpected("cannot open '\(path)' (errno \(errno))") }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw BenchmarkError.unexpected("short write to '\(path)' (errno \(errno))") }
    }
}
