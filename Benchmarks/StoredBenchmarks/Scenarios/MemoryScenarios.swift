import Foundation
import StoredKit

/// Peak memory of a process holding many keys and reading each of them. Each side runs in a fresh
/// child process of this binary, so one side's peak never includes the other's.
///
/// UserDefaults gets its keys from its plist file (as an app does at launch): filling it key by key
/// is not practical, each `set` costing time proportional to the keys already there.
enum MemoryScenarios {
    static var all: [Scenario] { StoreUnderTest.all.map(scenario) }

    static func scenario(_ target: StoreUnderTest) -> Scenario {
        let how =
            switch target {
            case .memory: "sets 100,000 integer keys (20,000 under --quick) in an in-memory store"
            case .file(let kind): "opens a \(kind.rawValue) store of 100,000 integer keys (20,000 under --quick)"
            }
        return Scenario(
            name: "memory.peak.\(target.name)", group: "memory",
            measures: "Peak RSS (VmHWM) of a process that \(how) and reads every key back.",
            subject: "\(target.name) store with N keys",
            baselines: [Baseline("userdefaults", "UserDefaults loading the same keys from its plist file, reading each")],
            requires: target.requires
        ) { context in
            let count = context.scaled(full: 100_000, quick: 20_000)
            let (keys, values, _) = content(count)
            let fixture = context.workDirectory.appendingPathComponent("memory-fixture-\(count).plist")
            if !FileManager.default.fileExists(atPath: fixture.path) {
                try PreferenceContent.writeIntegerPlist(keys: keys, values: values, to: fixture)
            }
            var notes: [String] = []
            let subject = try Side.subject(on: target) {
                let directory = try context.makeDirectory("memory")
                switch target {
                case .memory: break
                case .file(.plist), .file(.plistBinary):
                    try FileManager.default.copyItem(at: fixture, to: FileStoreKind.plist.fileURL(in: directory))
                case .file(let kind):
                    let store = try kind.openStore(in: directory)
                    for index in 0..<count { store.set(values[index], forKey: keys[index]) }
                    try store.flush()
                }
                let (peak, start) = try measurePeak(["memory-storedkit", target.name, "\(count)", directory.path])
                notes.append(increase("StoredKit", peak: peak, start: start))
                return Figure(kind: .bytes, value: peak)
            }
            var baselineNote = ""
            let baseline = try context.shared("memory-userdefaults-\(count)") {
                let (peak, start) = try measurePeak(["memory-userdefaults", "\(count)", fixture.path])
                baselineNote = increase("UserDefaults", peak: peak, start: start)
                return .measured(Figure(kind: .bytes, value: peak))
            }
            // Remembered with the shared baseline, so every memory scenario can print it.
            if case .pending(let note) = context.shared("memory-userdefaults-\(count)-note", { .pending(baselineNote) }) {
                notes.append(note)
            }
            return ScenarioOutcome(subject: subject, baselines: ["userdefaults": baseline], notes: notes)
        }
    }

    private static func increase(_ who: String, peak: Double, start: Double) -> String {
        String(format: "%@ process: %.1f MiB before the keys, peak +%.1f MiB", who, start / 1_048_576, (peak - start) / 1_048_576)
    }

    /// Runs one child job and returns its peak and starting RSS in bytes.
    private static func measurePeak(_ arguments: [String]) throws -> (peak: Double, start: Double) {
        let lines = try ChildProcess(arguments).waitForExit()
        return (try ChildProcess.value("peak", in: lines), try ChildProcess.value("start", in: lines))
    }

    /// The same keys and values in every process; children allocate them before the starting RSS.
    private static func content(_ count: Int) -> (keys: [String], values: [Int], sum: Int) {
        let values = PreferenceContent.randomIntegers(count, seed: 3)
        return (PreferenceContent.keys(count), values, values.reduce(0, &+))
    }

    /// `--child memory-storedkit <target> <count> <directory>`: a file store is already in the directory.
    static func storedKitChild(_ arguments: [String]) throws {
        guard arguments.count == 3, let target = StoreUnderTest(name: arguments[0]), let count = Int(arguments[1]) else {
            throw BenchmarkError.unexpected("usage: --child memory-storedkit <target> <count> <directory>")
        }
        let (keys, values, expected) = content(count)
        let start = try ChildSide.peakResidentBytes()
        let store = try target.open(in: URL(fileURLWithPath: arguments[2], isDirectory: true))
        if case .memory = target {
            for index in 0..<count { store.set(values[index], forKey: keys[index]) }
            try store.flush()
        }
        var sum = 0
        for key in keys { sum &+= store.value(forKey: key, as: Int.self) ?? 0 }
        guard sum == expected else { throw BenchmarkError.unexpected("read back sum \(sum) ≠ \(expected)") }
        ChildSide.say("start \(start)")
        ChildSide.say("peak \(try ChildSide.peakResidentBytes())")
    }

    /// `--child memory-userdefaults <count> <plist>`: a suite preloaded from the plist file.
    static func userDefaultsChild(_ arguments: [String]) throws {
        guard arguments.count == 2, let count = Int(arguments[0]) else {
            throw BenchmarkError.unexpected("usage: --child memory-userdefaults <count> <plist>")
        }
        let (keys, _, expected) = content(count)
        let start = try ChildSide.peakResidentBytes()
        try TemporaryDefaults.with(preloadedFrom: URL(fileURLWithPath: arguments[1])) { defaults in
            var sum = 0
            for key in keys { sum &+= defaults.integer(forKey: key) }
            guard sum == expected else { throw BenchmarkError.unexpected("read back sum \(sum) ≠ \(expected)") }
            ChildSide.say("start \(start)")
            ChildSide.say("peak \(try ChildSide.peakResidentBytes())")
        }
    }
}
