import Foundation
import StoredKit

/// A write that is on disk when the call returns, against the physical floor of the same disk.
enum DurableWriteScenarios {
    static var all: [Scenario] { [scenario(.plist), scenario(.sqlite)] }

    static func scenario(_ kind: FileStoreKind) -> Scenario {
        var baselines = [
            Baseline(
                "pwrite-fsync", "raw pwrite + fsync of 4 KiB (the physical floor)",
                goal: kind == .sqlite ? .costAtMost(1.5, source: "issue 4") : nil),
            Baseline("userdefaults-sync", "UserDefaults.set + synchronize()"),
        ]
        if kind == .sqlite { baselines.append(Baseline("raw-sqlite", "raw SQLite autocommit upsert")) }
        return Scenario(
            name: "write.durable.\(kind.rawValue)", group: "write, durable",
            measures: "One set() with .immediate durability on a \(kind.rawValue) file an earlier run of the app has "
                + "written \(previousLaunchWrites) times, timed per write (p50/p99).",
            subject: "store.set(Int) with .immediate",
            baselines: baselines,
            requires: kind
        ) { context in
            let count = context.scaled(full: 300, quick: 30)
            let subject = try Side.subject(on: .file(kind)) {
                let directory = try context.makeDirectory("durable")
                // An app's preferences file is written across launches: measure its second one.
                try previousLaunch(of: kind, in: directory)
                let store = try kind.openStore(in: directory, durability: .immediate)
                let clock = ContinuousClock()
                var next = 0
                return context.harness.measureLatencies(count: count) {
                    next += 1
                    let start = clock.now
                    store.set(next, forKey: "value")
                    return clock.now - start
                }
            }
            var outcome = ScenarioOutcome(subject: subject)
            outcome.baselines["pwrite-fsync"] = try context.shared("pwrite-fsync") {
                .measured(try measureFsyncFloor(count: context.scaled(full: 300, quick: 30), context))
            }
            outcome.baselines["userdefaults-sync"] = try context.shared("userdefaults-sync") {
                .measured(try measureDefaultsSynchronize(count: count, context))
            }
            if kind == .sqlite { outcome.baselines["raw-sqlite"] = try RawSQLiteBaseline.autocommitUpsert(count: count, context) }
            return outcome
        }
    }

    /// Durable writes an earlier run made before it quit.
    static let previousLaunchWrites = 300

    /// Opens a store on the file, writes it ``previousLaunchWrites`` times and closes it.
    static func previousLaunch(of kind: FileStoreKind, in directory: URL) throws {
        let store = try kind.openStore(in: directory, durability: .immediate)
        for value in 0..<previousLaunchWrites { store.set(-value, forKey: "value") }
        try store.flush()
    }

    /// Overwrites 4 KiB at offset 0 of a file in the work directory and fsyncs it, per write.
    static func measureFsyncFloor(count: Int, _ context: RunContext) throws -> Figure {
        let path = try context.makeDirectory("fsync").appendingPathComponent("floor.bin").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw BenchmarkError.unexpected("cannot create \(path): errno \(errno)") }
        defer { close(descriptor) }
        var block = [UInt8](repeating: 0x5A, count: 4096)
        let clock = ContinuousClock()
        var failure: Int32 = 0
        let figure = context.harness.measureLatencies(count: count) {
            block[0] &+= 1
            let start = clock.now
            let written = block.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, 4096, 0) }
            if written != 4096 || fsync(descriptor) != 0 { failure = errno }
            return clock.now - start
        }
        guard failure == 0 else { throw BenchmarkError.unexpected("pwrite/fsync on \(path) failed: errno \(failure)") }
        return figure
    }

    /// Foundation's closest thing to a durable write on Linux.
    static func measureDefaultsSynchronize(count: Int, _ context: RunContext) throws -> Figure {
        try TemporaryDefaults.with { defaults in
            let clock = ContinuousClock()
            var next = 0
            return context.harness.measureLatencies(count: count) {
                next += 1
                let start = clock.now
                defaults.set(next, forKey: "value")
                defaults.synchronize()
                return clock.now - start
            }
        }
    }
}
