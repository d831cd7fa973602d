import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Faults injected into the plist file layer by the reliability torture (`stored-torture faults`).
///
/// Read once, at the first write or sync, from the environment variable `STOREDKIT_FAULTS`, a
/// comma-separated list of:
/// - `short-write`: every `write(2)` writes at most a few bytes, as a full pipe or a signal may;
/// - `fsync-fail`: every `fsync(2)` fails with `EIO`, as a dying disk does;
/// - `write-fail-after=<bytes>`: writes fail with `ENOSPC` once the process wrote that many bytes.
///
/// Unset — always, outside the torture — ``active`` is `nil` and each hook costs one branch.
/// Only ``AtomicFile`` consults it; SQLite does its own I/O.
final class FileFaults: Sendable {
    /// The faults of this process, or `nil` when `STOREDKIT_FAULTS` is unset or empty.
    static let active: FileFaults? = FileFaults(specification: getenv("STOREDKIT_FAULTS").map { String(cString: $0) })

    let shortWrites: Bool
    let failingSyncs: Bool
    let writeBudget: Int?
    private let written = Atomic<Int>(0)

    private init?(specification: String?) {
        guard let specification, !specification.isEmpty else { return nil }
        var shortWrites = false
        var failingSyncs = false
        var writeBudget: Int?
        for fault in specification.split(separator: ",") {
            if fault == "short-write" { shortWrites = true }
            if fault == "fsync-fail" { failingSyncs = true }
            if fault.hasPrefix("write-fail-after=") { writeBudget = Int(fault.dropFirst("write-fail-after=".count)) }
        }
        self.shortWrites = shortWrites
        self.failingSyncs = failingSyncs
        self.writeBudget = writeBudget
    }

    /// One `write(2)`, shortened or failed as configured.
    func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        var allowed = shortWrites ? min(count, Int.random(in: 1...7)) : count
        if let writeBudget {
            let remaining = writeBudget - written.load(ordering: .relaxed)
            guard remaining > 0 || count == 0 else {
                errno = ENOSPC
                return -1
            }
            allowed = min(allowed, max(remaining, 0))
        }
        let result = SystemCall.unfaultedWrite(descriptor, bytes, allowed)
        if result > 0 { written.add(result, ordering: .relaxed) }
        return result
    }

    /// One `fsync(2)`, or `EIO` when syncs fail.
    func sync(_ descriptor: Int32) -> Int32 {
        guard !failingSyncs else {
            errno = EIO
            return -1
        }
        return fsync(descriptor)
    }
}
