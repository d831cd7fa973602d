import Foundation
import StoredKit
import StoredKitTestSupport

/// Damaged files: each sample store truncated at every byte offset (or every `step`-th), and
/// `flips` copies with 1–8 random bits flipped. Each case is opened with the default
/// quarantine policy, read, and written to. Cases run in child processes, in batches, so a
/// crash is counted (and the batch resumes after it) instead of ending the run.
enum CorruptionScenario {
    static func run(flips: Int, step: Int, seed: UInt64, samples: [SampleStore]) throws -> Bool {
        let directory = try ScratchDirectory("corruption")
        return try runEach(samples) { sample in
            try runCases(sample, in: directory, flips: flips, step: step, seed: seed)
        }
    }

    private static func runCases(
        _ sample: SampleStore, in directory: ScratchDirectory, flips: Int, step: Int, seed: UInt64
    ) throws -> FigureLine {
        let samplePath = directory.file("sample-\(sample.rawValue)")
        let bytes = try sample.create(at: samplePath + "/" + sample.fileName)
        let size = bytes.count
        let truncations = (size + step - 1) / step
        let total = truncations + flips
        var outcomes: [String: Int] = [:]
        var crashes = 0
        var writesFailed = 0
        var next = 0
        while next < total {
            let child = try ChildProcess([
                "corruption-cases", samplePath + "/" + sample.fileName, String(step), String(flips), String(seed),
                String(next),
            ])
            let ending = child.finish(timeout: .seconds(120 + total / 2))
            for line in child.lines {
                let fields = line.split(separator: " ")
                guard fields.count == 3, let index = Int(fields[0]), index == next else { continue }
                outcomes[String(fields[1]), default: 0] += 1
                if fields[2] == "write-failed" { writesFailed += 1 }
                next += 1
            }
            guard next < total else { break }
            guard ending != .exited(0) else {
                throw TortureError("the corruption child stopped at case \(next) without crashing")
            }
            // The case after the last reported one crashed (or hung) the child; go on after it.
            crashes += 1
            complain("\(sample.rawValue) case \(next) (seed \(seed), step \(step)) ended the child: \(ending)")
            next += 1
        }
        var line = FigureLine("corruption \(sample.rawValue)")
        line.info(
            "\(size) bytes, \(truncations) truncations (every \(step == 1 ? "" : "\(step)th ")offset) + \(flips) bit-flip cases"
        )
        line.mustBeZero(crashes, "crashes")
        line.info("opened intact \(outcomes["intact", default: 0])")
        line.info("opened with values lost or changed \(outcomes["changed", default: 0])")
        line.info("quarantined \(outcomes["quarantined", default: 0])")
        line.mustBeZero(outcomes["quarantine-lost", default: 0], "quarantined copies lost")
        line.info("error \(outcomes["error", default: 0])")
        line.mustBeZero(outcomes["unclear-error", default: 0], "errors not naming the file")
        line.info("a later write failed \(writesFailed)")
        return line
    }

    /// The bytes of case `index`: a truncation for the first cases, then bit flips.
    static func damaged(_ bytes: Data, index: Int, step: Int, seed: UInt64) -> Data {
        let truncations = (bytes.count + step - 1) / step
        if index < truncations { return bytes.prefix(index * step) }
        var generator = SeededGenerator(seed: seed &+ UInt64(index))
        var damaged = bytes
        for _ in 0..<Int.random(in: 1...8, using: &generator) where !damaged.isEmpty {
            let offset = Int.random(in: 0..<damaged.count, using: &generator)
            damaged[offset] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator)
        }
        return damaged
    }

    /// The child side: `corruption-cases SAMPLE STEP FLIPS SEED START`, one line `<index> <outcome>` per case.
    static func child(samplePath: String, step: Int, flips: Int, seed: UInt64, start: Int) throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: samplePath))
        let total = (original.count + step - 1) / step + flips
        let directory = try ScratchDirectory("corruption-case")
        let fileName = SystemPath.fileName(of: samplePath)
        let path = directory.file(fileName)
        for index in start..<total {
            try directory.clear()
            let bytes = damaged(original, index: index, step: step, seed: seed)
            try bytes.write(to: URL(fileURLWithPath: path))
            say("\(index) \(outcome(openingStoreAt: path, damaged: bytes, in: directory))")
        }
    }

    private static func outcome(openingStoreAt path: String, damaged: Data, in directory: ScratchDirectory) -> String {
        let store: PreferenceStore
        do {
            store = try PreferenceStore(fileAt: URL(fileURLWithPath: path))
        } catch {
            complain("opening a damaged file failed: \(error)")
            return describe(error, naming: path).isClear ? "error -" : "unclear-error -"
        }
        // Read every value as every type: decoding damaged values must not trap either.
        for key in store.keys {
            _ = store.value(forKey: key, as: Int.self)
            _ = store.value(forKey: key, as: String.self)
            _ = store.value(forKey: key, as: Double.self)
            _ = store.value(forKey: key, as: Bool.self)
            _ = store.value(forKey: key, as: Data.self)
            _ = store.value(forKey: key, as: Date.self)
            _ = store.value(forKey: key, as: [String].self)
            _ = store.value(forKey: key, as: [String: Int].self)
        }
        let quarantined = store.recentEvents.contains { if case .quarantined = $0 { true } else { false } }
        if quarantined {
            // Moved aside means kept: the damaged bytes must be there, unchanged, for a human to look at.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            let kept = names.filter { $0.contains(".corrupt-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
            guard kept.count == 1, FileManager.default.contents(atPath: directory.file(kept[0])) == damaged else {
                complain("the quarantined copy is missing or differs: \(names)")
                return "quarantine-lost -"
            }
        }
        let intact = store.dictionaryRepresentation() == SampleStore.values
        store.set("written after opening", forKey: "torture.after")
        var written = true
        do { try store.flush() } catch {
            written = false
            complain("writing to a damaged file that opened failed: \(error)")
        }
        return (quarantined ? "quarantined" : intact ? "intact" : "changed") + (written ? " write-ok" : " write-failed")
    }
}

/// Path helpers for the harness.
enum SystemPath {
    static func fileName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
