import Foundation
import StoredKit
import Synchronization

/// A write in one process reaching an observer in another: the delay a user sees between two
/// apps (or an app and the `stored` CLI) sharing one preferences file.
enum NotificationScenarios {
    static let ping = StoredKey<Int>("ping", default: 0)
    /// Time between two writes of process A: long enough for each to be noticed on its own.
    static let writeIntervalMilliseconds = 20

    static var all: [Scenario] { [FileStoreKind.plist, .sqlite].map(scenario) }

    static func scenario(_ kind: FileStoreKind) -> Scenario {
        Scenario(
            name: "notify.latency.\(kind.rawValue)", group: "notification latency",
            measures: "Process A sets a key and flushes; an observer in process B fires. A→B delay on CLOCK_MONOTONIC, p50/p99.",
            subject: "store.observe in B ← set + flush() in A",
            requires: kind
        ) { context in
            let count = context.scaled(full: 100, quick: 15)
            var notes: [String] = []
            let subject = try Side.subject(on: .file(kind)) {
                let directory = try context.makeDirectory("notify")
                let store = try kind.openStore(in: directory)
                store[ping] = 0
                try store.flush()
                let log = ArrivalLog()
                let token = store.observe(ping) { change in
                    if change.origin == .external, change.newValue > 0 { log.record(sentAt: change.newValue) }
                }
                let writer = try ChildProcess([
                    "notify-writer", kind.rawValue, directory.path, "\(count)", "\(writeIntervalMilliseconds)",
                ])
                try writer.expect("ready")
                writer.send("go")
                try writer.waitForExit()
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(2)
                while log.latencies.count < count, clock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
                let latencies = withExtendedLifetime(token) { log.latencies }
                guard !latencies.isEmpty else { throw BenchmarkError.unexpected("no write of process A reached process B") }
                notes.append(
                    "B was notified of \(latencies.count) of \(count) writes (writes \(writeIntervalMilliseconds) ms apart)")
                return Figure(latencies: latencies)
            }
            return ScenarioOutcome(subject: subject, notes: notes)
        }
    }

    /// Arrival delays recorded on whatever thread the store notifies on.
    final class ArrivalLog: Sendable {
        private let samples = Mutex<[Double]>([])

        func record(sentAt: Int) {
            let delay = Double(monotonicNanoseconds() - Int64(sentAt)) / 1e9
            samples.withLock { $0.append(delay) }
        }

        var latencies: [Double] { samples.withLock { $0 } }
    }

    /// `--child notify-writer <kind> <directory> <count> <interval-ms>`: writes its send time.
    static func writerChild(_ arguments: [String]) throws {
        guard arguments.count == 4, let kind = FileStoreKind(rawValue: arguments[0]), let count = Int(arguments[2]),
            let interval = UInt32(arguments[3])
        else {
            throw BenchmarkError.unexpected("usage: --child notify-writer <kind> <directory> <count> <interval-ms>")
        }
        try sendPings(from: try kind.openStore(in: URL(fileURLWithPath: arguments[1], isDirectory: true)), count, interval)
    }

    /// The writing side of a latency scenario: says "ready", and once told to go writes its send
    /// time to ``ping`` and flushes, `count` times `interval` ms apart, then says "done".
    static func sendPings(from store: PreferenceStore, _ count: Int, _ interval: UInt32) throws {
        ChildSide.say("ready")
        try ChildSide.waitForGo()
        for _ in 0..<count {
            store[ping] = Int(monotonicNanoseconds())
            try store.flush()
            usleep(interval * 1_000)
        }
        ChildSide.say("done")
    }
}
