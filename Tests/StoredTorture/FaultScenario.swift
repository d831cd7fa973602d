import Foundation
import StoredKit
import StoredKitTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Writes that fail underneath the store: disk full (a file size limit, and a full tmpfs), a
/// read-only directory (`chattr +i`, and a read-only bind mount: root ignores permission bits),
/// and through the `STOREDKIT_FAULTS` seam of the plist file layer: fsync failure, short writes,
/// and writes failing part-way. A child writes new values over a store holding previous ones;
/// the parent reopens it. The store must hold exactly the previous or exactly the new values,
/// a reported success must have landed, and every error must name the store's path.
enum FaultScenario {
    /// One way of making writes fail.
    struct Variant {
        let name: String
        let kinds: [StoreKind]
        var environment: [String: String] = [:]
        /// Sets the fault up before the child runs (returns false when it cannot be set up here).
        var prepare: (_ directory: String, _ random: inout SeededGenerator) -> Bool = { _, _ in true }
        /// Undoes `prepare` before the parent reopens the store.
        var undo: (_ directory: String) -> Void = { _ in }
        /// The `RLIMIT_FSIZE` the child sets after opening, or -1 for none.
        var fileSizeLimit: (_ random: inout SeededGenerator) -> Int = { _ in -1 }
    }

    static let previousValues: [String: StoredValue] = [
        "a": .int(1), "text": .string("previous"), "blob": .data(Data(repeating: 1, count: 2048)),
    ]

    /// The values the child writes in case `seed`: large enough to overflow the limits.
    static func newValues(seed: UInt64) -> [String: StoredValue] {
        var random = SeededGenerator(seed: seed)
        let size = Int.random(in: 4096...65536, using: &random)
        return [
            "a": .int(2), "text": .string("new"), "blob": .data(Data(repeating: 2, count: size)),
            "extra": .array((0..<50).map { .string("entry \($0)") }),
        ]
    }

    static func variants(fileSizeCeiling: Int) -> [Variant] {
        let seamKinds: [StoreKind] = [.plist]
        return [
            Variant(
                name: "disk full (RLIMIT_FSIZE)", kinds: StoreKind.allCases,
                fileSizeLimit: { random in Int.random(in: 0...fileSizeCeiling, using: &random) }),
            Variant(name: "disk full (tmpfs)", kinds: StoreKind.allCases, prepare: TmpfsFault.fill, undo: TmpfsFault.drain),
            Variant(
                name: "read-only directory (chattr +i)", kinds: StoreKind.allCases,
                prepare: { directory, _ in runTool(["chattr", "+i", directory]) },
                undo: { directory in runTool(["chattr", "-i", directory]) }),
            Variant(
                name: "read-only directory (ro bind mount)", kinds: StoreKind.allCases,
                prepare: { directory, _ in
                    guard runTool(["mount", "--bind", directory, directory]) else { return false }
                    guard runTool(["mount", "-o", "remount,bind,ro", directory]) else {
                        runTool(["umount", directory])
                        return false
                    }
                    return true
                },
                undo: { directory in runTool(["umount", directory]) }),
            Variant(name: "fsync fails (seam)", kinds: seamKinds, environment: ["STOREDKIT_FAULTS": "fsync-fail"]),
            Variant(name: "short writes (seam)", kinds: seamKinds, environment: ["STOREDKIT_FAULTS": "short-write"]),
        ]
    }

    static func run(cases: Int, seed: UInt64) throws -> Bool {
        let runs = (variants(fileSizeCeiling: 80_000) + [writeFailsPartWay()]).flatMap { variant in
            variant.kinds.map { (variant, $0) }
        }
        return try runEach(runs) { variant, kind in try runCases(cases, variant: variant, kind: kind, seed: seed) }
    }

    /// Writes fail with ENOSPC after a random number of bytes, fixed per case through the seed.
    private static func writeFailsPartWay() -> Variant {
        Variant(name: "writes fail part-way (seam)", kinds: [.plist], environment: ["STOREDKIT_FAULTS": "write-fail-after"])
    }

    private static func runCases(_ cases: Int, variant: Variant, kind: StoreKind, seed: UInt64) throws -> FigureLine {
        var line = FigureLine("faults \(variant.name) \(kind)")
        var succeeded = 0
        var failedCleanly = 0
        var notIntact = 0
        var lost = 0
        var unclear = 0
        var crashes = 0
        var committedDespiteError = 0
        let directory = try ScratchDirectory("faults")
        if variant.name.contains("tmpfs") {
            guard TmpfsFault.mount(directory.path) else {
                line.info("skipped: cannot mount a tmpfs here (needs root)")
                return line
            }
        }
        defer { if variant.name.contains("tmpfs") { TmpfsFault.unmount(directory.path) } }
        let path = directory.file(kind.fileName)
        for index in 0..<cases {
            let caseSeed = seed &+ UInt64(index)
            // Not the generator of the case's values: the limits must not follow the sizes.
            var random = SeededGenerator(seed: ~caseSeed)
            try directory.clear()
            do {
                let store = try PreferenceStore(fileAt: URL(fileURLWithPath: path))
                for (key, value) in previousValues { store.setStoredValue(value, forKey: key) }
                try store.flush()
            }
            guard variant.prepare(directory.path, &random) else {
                line.info("skipped: could not set the fault up here")
                return line
            }
            var environment = variant.environment
            if environment["STOREDKIT_FAULTS"] == "write-fail-after" {
                environment["STOREDKIT_FAULTS"] = "write-fail-after=\(Int.random(in: 0...70_000, using: &random))"
            }
            let child = try ChildProcess(
                ["fault-write", path, String(variant.fileSizeLimit(&random)), String(caseSeed)], environment: environment)
            let ending = child.finish(timeout: .seconds(120))
            variant.undo(directory.path)
            let report = child.lines.last ?? ""
            if ending != .exited(0) {
                crashes += 1
                complain("\(variant.name) \(kind) case \(index): the writer ended with \(ending) after \(child.lines)")
                continue
            }
            let reportedSuccess = report == "ok"
            if reportedSuccess {
                succeeded += 1
            } else if report.contains(path) {
                failedCleanly += 1
            } else {
                unclear += 1
                complain("\(variant.name) \(kind) case \(index): unclear error: \(report)")
            }
            let expectedNew = newValues(seed: caseSeed)
            do {
                let values = try PreferenceStore(fileAt: URL(fileURLWithPath: path), corruption: .fail).dictionaryRepresentation()
                if values == expectedNew {
                    if !reportedSuccess { committedDespiteError += 1 }
                } else if values == previousValues {
                    if reportedSuccess {
                        lost += 1
                        complain("\(variant.name) \(kind) case \(index): success reported but the previous values are there")
                    }
                } else {
                    notIntact += 1
                    complain(
                        "\(variant.name) \(kind) case \(index): neither the previous nor the new values: \(values.keys.sorted())")
                }
            } catch {
                notIntact += 1
                complain("\(variant.name) \(kind) case \(index): reopening failed: \(error)")
            }
        }
        line.info("\(cases) cases: \(succeeded) written, \(failedCleanly + unclear) failed")
        line.mustBeZero(notIntact, "previous data not intact")
        line.mustBeZero(lost, "reported writes lost")
        line.mustBeZero(unclear, "unclear errors")
        line.mustBeZero(crashes, "crashes")
        if committedDespiteError > 0 { line.info("\(committedDespiteError) committed although an error was reported") }
        return line
    }

    /// The child side: `fault-write PATH FILE_SIZE_LIMIT SEED`; prints `ok` or the error.
    static func child(path: String, fileSizeLimit: Int, seed: UInt64) -> Never {
        signal(SIGXFSZ, SIG_IGN)  // exceeding the limit must be an EFBIG error, not a killed process
        do {
            let store = try PreferenceStore(fileAt: URL(fileURLWithPath: path))
            if fileSizeLimit >= 0 {
                var limit = rlimit()
                getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
                limit.rlim_cur = rlim_t(fileSizeLimit)
                guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else {
                    throw TortureError("setrlimit failed: errno \(errno)")
                }
            }
            for (key, value) in newValues(seed: seed) { store.setStoredValue(value, forKey: key) }
            try store.flush()
            say("ok")
        } catch {
            say("\(error)")
        }
        // No exit-time retry of what failed: the parent judges this one attempt.
        _exit(0)
    }
}

/// A small tmpfs mounted over the scenario's directory, filled so that only a random amount of space is left.
enum TmpfsFault {
    static let fillerName = "filler"

    static func mount(_ directory: String) -> Bool {
        runTool(["mount", "-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs", directory])
    }

    static func unmount(_ directory: String) {
        runTool(["umount", directory])
    }

    static func fill(_ directory: String, _ random: inout SeededGenerator) -> Bool {
        var status = statvfs()
        guard statvfs(directory, &status) == 0 else { return false }
        let free = Int(status.f_bavail) * Int(status.f_frsize)
        let leave = Int.random(in: 0...min(free, 160_000), using: &random)
        return FileManager.default.createFile(
            atPath: directory + "/" + fillerName, contents: Data(count: max(free - leave, 0)))
    }

    static func drain(_ directory: String) {
        unlink(directory + "/" + fillerName)
    }
}
