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
        if kind == .plist {
            baselines.append(
                Baseline(
                    "atomic-replace",
                    "raw atomic replace of a file of the store's size (the honest floor, see AtomicReplaceFloor)",
                    goal: .costAtMost(1.3, source: "issue 19")))
        }
        return Scenario(
            name: "write.durable.\(kind.rawValue)", group: "write, durable",
            measures: "One set() with .immediate durability on a \(kind.rawValue) file, timed per write (p50/p99).",
            subject: "store.set(Int) with .immediate",
            baselines: baselines,
            requires: kind
        ) { context in
            let count = context.scaled(full: 300, quick: 30)
            var floor: Figure?
            var replaceLatencies: [Double] = []
            let subject = try Side.subject(on: .file(kind)) {
                let directory = try context.makeDirectory("durable")
                let store = try kind.openStore(in: directory, durability: .immediate)
                let fsyncFloor = try FsyncFloor(in: context)
                store.set(0, forKey: "value")
                let fileSize = (try? kind.fileURL(in: directory).resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 4096
                let replaceFloor = kind == .plist ? try AtomicReplaceFloor(in: context, size: fileSize) : nil
                let clock = ContinuousClock()
                var next = 0
                // Alternating with the floor: a virtual disk's speed drifts by a third within a
                // run, and a ratio of two figures taken at different moments would carry it.
                let figures = try context.harness.measurePairedLatencies(count: count) {
                    next += 1
                    let start = clock.now
                    store.set(next, forKey: "value")
                    return clock.now - start
                } against: {
                    // The three take turns: store, overwrite floor, atomic replace floor.
                    if let replaceFloor { replaceLatencies.append(try replaceFloor.replaceOnce().seconds) }
                    return try fsyncFloor.writeOnce()
                }
                floor = figures.baseline
                return figures.subject
            }
            var outcome = ScenarioOutcome(subject: subject)
            // A backend that is not wired yet still shows its baselines: the floor on its own then.
            let fsyncFloor = try floor ?? FsyncFloor(in: context).latencies(count: count, context.harness)
            outcome.baselines["pwrite-fsync"] = .measured(fsyncFloor)
            outcome.baselines["userdefaults-sync"] = try context.shared("userdefaults-sync") {
                .measured(try measureDefaultsSynchronize(count: count, context))
            }
            if kind == .plist, !replaceLatencies.isEmpty {
                // The warm-up's replaces are not timed results.
                outcome.baselines["atomic-replace"] = .measured(Figure(latencies: Array(replaceLatencies.suffix(count))))
            }
            if kind == .sqlite { outcome.baselines["raw-sqlite"] = try RawSQLiteBaseline.autocommitUpsert(count: count, context) }
            return outcome
        }
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

/// The physical floor of a durable write: 4 KiB overwritten at offset 0 of a file in the work
/// directory, then `fsync`.
///
/// ```swift
/// let floor = try FsyncFloor(in: context)
/// let oneWrite = try floor.writeOnce()
/// ```
final class FsyncFloor {
    private let path: String
    private let descriptor: Int32
    private var block = [UInt8](repeating: 0x5A, count: 4096)

    init(in context: RunContext) throws {
        path = try context.makeDirectory("fsync").appendingPathComponent("floor.bin").path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw BenchmarkError.unexpected("cannot create \(path): errno \(errno)") }
        // The file exists at its full size before the first timed write, like the log it is compared with.
        _ = try writeOnce()
    }

    deinit {
        close(descriptor)
    }

    /// `count` timed writes on their own.
    func latencies(count: Int, _ harness: Harness) throws -> Figure {
        try harness.measureLatencies(count: count) { try writeOnce() }
    }

    /// Overwrites the block (one byte changed) and syncs it; returns how long that took.
    func writeOnce() throws -> Duration {
        block[0] &+= 1
        let clock = ContinuousClock()
        let start = clock.now
        let written = block.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, 4096, 0) }
        guard written == 4096, fsync(descriptor) == 0 else {
            throw BenchmarkError.unexpected("pwrite/fsync on \(path) failed: errno \(errno)")
        }
        return clock.now - start
    }
}
