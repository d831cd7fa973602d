import Foundation
import StoredKit

/// Opening a store whose file is not in memory yet (the file itself is in the page cache), until
/// the first value can be read.
enum OpenScenarios {
    static let sizes = [1_000, 10_000, 100_000]

    static var all: [Scenario] { sizes.map(plist) + sizes.map(sqlite) + [freshProcess] }

    static func label(_ count: Int) -> String { "\(count / 1_000)k" }

    static func plist(_ count: Int) -> Scenario {
        Scenario(
            name: "open.\(label(count)).plist", group: "open",
            measures: "Cold open of an XML plist of \(count) mixed keys written by Foundation, up to the first read.",
            subject: "PreferenceStore(.plist(at:)) + first read",
            baselines: [
                Baseline(
                    "plist-parse", "Data(contentsOf:) + PropertyListSerialization.propertyList",
                    goal: count == 10_000 ? .faster(5, source: "issue 3") : nil)
            ],
            requires: .plist, fullRunOnly: count >= 100_000
        ) { context in
            let subject = try context.shared("open-plist-store-\(count)") { try measurePlistStoreOpen(count, context) }
            let baseline = try context.shared("open-plist-parse-\(count)") { .measured(try measureParse(count, context)) }
            return ScenarioOutcome(subject: subject, baselines: ["plist-parse": baseline])
        }
    }

    static func sqlite(_ count: Int) -> Scenario {
        Scenario(
            name: "open.\(label(count)).sqlite", group: "open",
            measures: "Cold open of an SQLite store of \(count) mixed keys, up to the first read.",
            subject: "PreferenceStore(.sqlite(at:)) + first read",
            baselines: [
                Baseline("raw-sqlite", "raw SQLite open + full scan"),
                Baseline(
                    "plist-store", "the plist store opening the same content",
                    goal: count == 10_000 ? Goal(minimumRatio: 1, statement: "≤ plist store's time", source: "issue 4") : nil),
            ],
            requires: .sqlite, fullRunOnly: count >= 100_000
        ) { context in
            let subject = try Side.subject(on: .file(.sqlite)) {
                try measureOpen(.sqlite, in: try sqliteStore(count, "open-sqlite", context), count: count, context)
            }
            let plistStore = try context.shared("open-plist-store-\(count)") { try measurePlistStoreOpen(count, context) }
            return ScenarioOutcome(
                subject: subject,
                baselines: [
                    "raw-sqlite": try RawSQLiteBaseline.fullScan(keyCount: count, rounds: rounds(count, context), context),
                    "plist-store": plistStore,
                ])
        }
    }

    /// The 10k open as an app does it: once, in a process that has not run StoredKit or SQLite
    /// before (their code not yet paged in, no memory freed by an earlier round to reuse). Each
    /// round starts one child per store, one after the other, the first alternating.
    static var freshProcess: Scenario {
        Scenario(
            name: "open.10k.sqlite.fresh-process", group: "open",
            measures: "Open of an SQLite store of 10000 mixed keys, up to the first read, once in each of N new processes.",
            subject: "PreferenceStore(.sqlite(at:)) + first read, in a new process",
            baselines: [
                Baseline(
                    "plist-store", "the plist store opening the same content, in a new process",
                    goal: Goal(minimumRatio: 1, statement: "≤ plist store's time", source: "issue 4"))
            ],
            requires: .sqlite
        ) { context in
            let count = 10_000
            let rounds = context.scaled(full: 20, quick: 3)
            let plistDirectory = try context.makeDirectory("open-fresh-plist")
            try FileManager.default.copyItem(at: try fixture(count, context), to: FileStoreKind.plist.fileURL(in: plistDirectory))
            var plistSeconds: [Double] = []
            let subject = try Side.subject(on: .file(.sqlite)) {
                let directory = try sqliteStore(count, "open-fresh-sqlite", context)
                var seconds: [Double] = []
                for round in 0..<rounds {
                    // Each store goes first in every other round, so neither always follows the other.
                    if round.isMultiple(of: 2) { seconds.append(try openInChild(.sqlite, directory)) }
                    plistSeconds.append(try openInChild(.plist, plistDirectory))
                    if !round.isMultiple(of: 2) { seconds.append(try openInChild(.sqlite, directory)) }
                }
                return Figure(kind: .time, samples: seconds, operationsPerRound: 1)
            }
            let baseline: Side = .measured(Figure(kind: .time, samples: plistSeconds, operationsPerRound: 1))
            return ScenarioOutcome(subject: subject, baselines: ["plist-store": baseline])
        }
    }

    /// A new directory holding an SQLite store of the content (closed again, its log checkpointed).
    private static func sqliteStore(_ count: Int, _ name: String, _ context: RunContext) throws -> URL {
        let directory = try context.makeDirectory(name)
        let store = try FileStoreKind.sqlite.openStore(in: directory)
        for (key, value) in PreferenceContent.mixed(count).stored { store.setStoredValue(value, forKey: key) }
        try store.flush()
        return directory
    }

    /// Seconds a new process took to open the store in `directory` and read `key-0`.
    private static func openInChild(_ kind: FileStoreKind, _ directory: URL) throws -> Double {
        try ChildProcess.value("seconds", in: try ChildProcess(["open-once", kind.rawValue, directory.path]).waitForExit())
    }

    /// `--child open-once <kind> <directory>`: opens the store, reads `key-0`, prints `seconds <s>`.
    static func openOnceChild(_ arguments: [String]) throws {
        guard arguments.count == 2, let kind = FileStoreKind(rawValue: arguments[0]) else {
            throw BenchmarkError.unexpected("usage: --child open-once <kind> <directory>")
        }
        let clock = ContinuousClock()
        let start = clock.now
        let store = try kind.openStore(in: URL(fileURLWithPath: arguments[1], isDirectory: true))
        guard store.storedValue(forKey: "key-0") == .int(0) else { throw BenchmarkError.unexpected("no key-0 in the store") }
        ChildSide.say("seconds \((clock.now - start).seconds)")
    }

    private static func rounds(_ count: Int, _ context: RunContext) -> Int {
        count >= 100_000 ? 3 : context.harness.rounds
    }

    /// The content as an XML plist written by Foundation; made once per size and run.
    static func fixture(_ count: Int, _ context: RunContext) throws -> URL {
        let url = context.workDirectory.appendingPathComponent("open-fixture-\(count).plist")
        if !FileManager.default.fileExists(atPath: url.path) {
            let content = PreferenceContent.mixed(count).foundation
            try PropertyListSerialization.data(fromPropertyList: content, format: .xml, options: 0).write(to: url)
        }
        return url
    }

    private static func measurePlistStoreOpen(_ count: Int, _ context: RunContext) throws -> Side {
        try Side.subject(on: .file(.plist)) {
            let directory = try context.makeDirectory("open-plist")
            try FileManager.default.copyItem(
                at: try fixture(count, context), to: FileStoreKind.plist.fileURL(in: directory))
            return try measureOpen(.plist, in: directory, count: count, context)
        }
    }

    private static func measureOpen(_ kind: FileStoreKind, in directory: URL, count: Int, _ context: RunContext) throws
        -> Figure
    {
        let clock = ContinuousClock()
        var found: StoredValue?
        let figure = try context.harness.measureRounds(rounds: rounds(count, context), operations: 1) {
            let start = clock.now
            let store = try kind.openStore(in: directory)
            found = store.storedValue(forKey: "key-0")
            // Closing the store (its deinit) is not part of opening it.
            return withExtendedLifetime(store) { clock.now - start }
        }
        guard found == .int(0) else {
            throw BenchmarkError.unexpected("opened store lacks key-0 (found \(String(describing: found)))")
        }
        return figure
    }

    private static func measureParse(_ count: Int, _ context: RunContext) throws -> Figure {
        let url = try fixture(count, context)
        let clock = ContinuousClock()
        return try context.harness.measureRounds(rounds: rounds(count, context), warmUp: count < 100_000, operations: 1) {
            let start = clock.now
            let data = try Data(contentsOf: url)
            let content = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            blackHole((content as? [String: Any])?.count)
            return clock.now - start
        }
    }
}
