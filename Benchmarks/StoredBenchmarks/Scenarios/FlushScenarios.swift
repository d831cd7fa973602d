import Foundation
import StoredKit

/// Committing a store whose 1,000 keys all changed, against Foundation writing the same content.
enum FlushScenarios {
    static let keyCount = 1_000

    static var all: [Scenario] { [scenario(.plist, format: .xml), scenario(.plistBinary, format: .binary)] }

    static func scenario(_ kind: FileStoreKind, format: PropertyListSerialization.PropertyListFormat) -> Scenario {
        let formatName = format == .xml ? "XML" : "binary"
        return Scenario(
            name: "flush.1k.\(kind.rawValue)", group: "flush",
            measures: "flush() of a \(kind.rawValue) store after all of its \(keyCount) mixed keys changed (\(formatName)).",
            subject: "store.flush() of \(keyCount) changed keys",
            baselines: [
                Baseline(
                    "plist-write", "PropertyListSerialization.data(\(formatName)) + Data.write(.atomic)",
                    goal: kind == .plist ? .faster(5, source: "issue 3") : nil),
                Baseline("plist-write-fsync", "the same + fsync of the file and its directory (the store's durability)"),
            ],
            requires: kind
        ) { context in
            let subject = try Side.subject(on: .file(kind)) {
                let store = try kind.openStore(in: try context.makeDirectory("flush"))
                var revision = 0
                return try context.harness.measureRounds(operations: 1) {
                    revision += 1
                    for (key, value) in PreferenceContent.mixed(keyCount, revision: revision).stored {
                        store.setStoredValue(value, forKey: key)
                    }
                    let clock = ContinuousClock()
                    let start = clock.now
                    try store.flush()
                    return clock.now - start
                }
            }
            let directory = try context.makeDirectory("flush-foundation")
            var outcome = ScenarioOutcome(subject: subject)
            for durable in [false, true] {
                var revision = 0
                let figure = try context.harness.measureRounds(operations: 1) {
                    revision += 1
                    let content = PreferenceContent.mixed(keyCount, revision: revision).foundation
                    let url = directory.appendingPathComponent("foundation.plist")
                    let clock = ContinuousClock()
                    let start = clock.now
                    try PropertyListSerialization.data(fromPropertyList: content, format: format, options: 0)
                        .write(to: url, options: .atomic)
                    if durable {
                        try fsyncPath(url.path)
                        try fsyncPath(directory.path)
                    }
                    return clock.now - start
                }
                outcome.baselines[durable ? "plist-write-fsync" : "plist-write"] = .measured(figure)
            }
            return outcome
        }
    }

    /// Opens `path` read-only and fsyncs it (works for files and directories).
    static func fsyncPath(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw BenchmarkError.unexpected("cannot open \(path): errno \(errno)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw BenchmarkError.unexpected("fsync \(path) failed: errno \(errno)") }
    }
}
