import Foundation
import StoredKit

/// kill -9 during a migration: a child opens a version-0 store with two migrations (rename
/// 2000 keys, then rewrite each into a dictionary) and is killed at a random moment within
/// 1.2 × the time opening (load, migrate, commit) takes. The reopened store must be entirely
/// before (version 0, the old keys) or entirely after (version 2, the new keys), never between.
enum MigrationCrashScenario {
    static let keyCount = 2000

    static let before: [String: StoredValue] = Dictionary(
        uniqueKeysWithValues: (0..<keyCount).map {
            ("old.\($0)", StoredValue.string("value \($0) " + String(repeating: "x", count: 40)))
        })

    static let after: [String: StoredValue] = Dictionary(
        uniqueKeysWithValues: (0..<keyCount).map { index in
            ("new.\(index)", StoredValue.dictionary(["value": before["old.\(index)"] ?? .int(0), "index": .int(Int64(index))]))
        }
    ).merging(["settings.version": .string("2")]) { $1 }

    static let migrations = [
        Migration(version: 1, "rename every key") { context in
            for index in 0..<keyCount { try context.renameKey("old.\(index)", to: "new.\(index)") }
        },
        Migration(version: 2, "wrap every value") { context in
            for index in 0..<keyCount {
                let old = context.storedValue(forKey: "new.\(index)") ?? .int(0)
                context.setStoredValue(.dictionary(["value": old, "index": .int(Int64(index))]), forKey: "new.\(index)")
            }
            context.setStoredValue(.string("2"), forKey: "settings.version")
        },
    ]

    static func run(trials: Int, kinds: [StoreKind]) throws -> Bool {
        try runEach(kinds) { kind in try runTrials(trials, kind: kind) }
    }

    private static func runTrials(_ trials: Int, kind: StoreKind) throws -> FigureLine {
        let template = try ScratchDirectory("migration-template")
        do {
            let store = try PreferenceStore(fileAt: URL(fileURLWithPath: template.file(kind.fileName)))
            for (key, value) in before { store.setStoredValue(value, forKey: key) }
            try store.flush()
        }
        let directory = try ScratchDirectory("migration")
        let path = directory.file(kind.fileName)
        let runTime = try calibrate(template: template, directory: directory, kind: kind)
        var counts = (before: 0, after: 0, between: 0, corrupt: 0, lost: 0, leftovers: 0)
        for trial in 0..<trials {
            try directory.clear()
            try FileManager.default.copyItem(atPath: template.file(kind.fileName), toPath: path)
            let child = try ChildProcess(["migrate", path])
            guard child.readLines(timeout: .seconds(60), until: { $0 == "opening" }) else {
                throw TortureError("the migrating child did not start: \(child.lines)")
            }
            usleep(UInt32.random(in: 0...UInt32(runTime * 1.2 * 1_000_000)))
            child.killHard()
            let reported = child.lines.contains("migrated")
            do {
                let store = try PreferenceStore(fileAt: URL(fileURLWithPath: path), corruption: .fail)
                let values = store.dictionaryRepresentation()
                if store.schemaVersion == 0 && values == before {
                    counts.before += 1
                    if reported {
                        counts.lost += 1
                        complain("\(kind) trial \(trial): the migration was reported done but is not there")
                    }
                } else if store.schemaVersion == 2 && values == after {
                    counts.after += 1
                } else {
                    counts.between += 1
                    complain("\(kind) trial \(trial): version \(store.schemaVersion) with \(values.count) keys")
                }
            } catch StoreError.corruptFile(_, let reason, _) {
                counts.corrupt += 1
                complain("\(kind) trial \(trial): corrupt: \(reason)")
            }
            let left = try directory.leftovers(besides: kind.fileName)
            counts.leftovers += left.count
            if !left.isEmpty { complain("\(kind) trial \(trial): left behind \(left)") }
        }
        var line = FigureLine("migration crash \(kind)")
        line.info("\(trials) kills within \(Int(runTime * 1.2 * 1000)) ms of opening")
        line.info("\(counts.before) fully before, \(counts.after) fully after")
        line.mustBeZero(counts.between, "in between")
        line.mustBeZero(counts.corrupt, "corrupt")
        line.mustBeZero(counts.lost, "reported migrations lost")
        line.mustBeZero(counts.leftovers, "leftover temp files")
        return line
    }

    /// Seconds one uninterrupted migrating child takes to open the store: load, migrate, commit.
    private static func calibrate(template: ScratchDirectory, directory: ScratchDirectory, kind: StoreKind) throws -> Double {
        var longest = 0.0
        for _ in 0..<3 {
            try directory.clear()
            try FileManager.default.copyItem(atPath: template.file(kind.fileName), toPath: directory.file(kind.fileName))
            let child = try ChildProcess(["migrate", directory.file(kind.fileName)])
            guard child.readLines(timeout: .seconds(60), until: { $0 == "opening" }) else {
                throw TortureError("the migrating child did not start: \(child.lines)")
            }
            let start = ContinuousClock.now
            guard child.readLines(timeout: .seconds(60), until: { $0 == "migrated" }), child.finish() == .exited(0) else {
                throw TortureError("the migrating child failed: \(child.lines)")
            }
            let elapsed = ContinuousClock.now - start
            longest = max(longest, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return longest
    }

    /// The child side: `migrate PATH`.
    static func child(path: String) throws {
        say("opening")
        let store = try PreferenceStore(fileAt: URL(fileURLWithPath: path), migrations: migrations)
        guard store.schemaVersion == 2 else { throw TortureError("opened at version \(store.schemaVersion)") }
        say("migrated")
    }
}
