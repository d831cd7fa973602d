import Foundation

/// Everything a scenario needs while it runs: the harness, the size of the run, a private scratch
/// directory and figures shared between scenarios (an expensive baseline is measured once).
///
/// ```swift
/// let raw = try context.shared("raw-sqlite-upsert") { .measured(try measureRawUpsert(context)) }
/// let count = context.scaled(full: 10_000, quick: 1_000)
/// ```
final class RunContext {
    let quick: Bool
    let harness: Harness
    /// Removed when the run ends.
    let workDirectory: URL
    private var sharedSides: [String: Side] = [:]

    init(quick: Bool) throws {
        self.quick = quick
        harness = Harness(quick: quick)
        workDirectory = try Isolation.workDirectory()
    }

    /// `full` in a full run, `quick` under `--quick`.
    func scaled(full: Int, quick: Int) -> Int { self.quick ? quick : full }

    /// A fresh empty directory inside the work directory.
    func makeDirectory(_ name: String) throws -> URL {
        let directory = workDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Measures `id` once per run; later scenarios asking for it get the same figure.
    func shared(_ id: String, _ measure: () throws -> Side) rethrows -> Side {
        if let side = sharedSides[id] { return side }
        let side = try measure()
        sharedSides[id] = side
        return side
    }

    /// Deletes the work directory (every file a scenario made).
    func cleanUp() {
        try? FileManager.default.removeItem(at: workDirectory)  // best effort: it is under the temp directory
    }
}
